import t from 'tap'
import { keyHint, maskedKey, MAX_KEY_LENGTH, readKeyText } from '../../../src/push/model/open-cloud-key-text.js'

const KEY = 'rbx-OC-0123456789abcdefGHIJKLmnop+/='

t.test('a key file', async (t) => {
  t.same(readKeyText(`${KEY}\n`), { ok: true, key: KEY }, 'one trailing newline')
  t.same(readKeyText(`  ${KEY}\r\n\n`), { ok: true, key: KEY }, 'surrounding whitespace, CRLF')
  const refused: Array<[string, string]> = [
    ['empty', ''],
    ['only whitespace', ' \n\t'],
    ['two lines', `${KEY}\n${KEY}`],
    ['a space inside', 'abcdefgh ijklmnopq'],
    ['non-ASCII', `${KEY}é`],
    ['an emoji', `${KEY}🎮`],
    ['too short', 'abc'],
    ['too long', 'x'.repeat(MAX_KEY_LENGTH + 1)],
    ['a NUL byte', `${KEY}\0`],
  ]
  for (const [what, text] of refused) t.equal(readKeyText(text).ok, false, what)
})

t.test('only the last four characters are ever shown', async (t) => {
  t.equal(keyHint(KEY), 'op+/='.slice(-4))
  t.equal(maskedKey(keyHint(KEY)), '****p+/=')
  t.notMatch(maskedKey(keyHint(KEY)), KEY.slice(0, 8))
})
