import t from 'tap'
import { bearerToken, digestsEqual, hashSecret, makeApiKey, parseApiKey } from '../../src/auth/api-key.js'

t.test('a made key parses back to its id and a secret whose hash is stored', async (t) => {
  const bytes = new Uint8Array(128).map((_, i) => (i * 37) % 251)
  const key = makeApiKey(bytes)
  t.match(key.full, /^pl_[a-z0-9]{12}_[a-z0-9]{32}$/)
  const parsed = parseApiKey(key.full)
  t.equal(parsed?.id, key.id)
  t.equal(hashSecret(parsed!.secret), key.hash)
  t.notOk(key.full.includes(key.hash))
})

t.test('bearer header parsing', async (t) => {
  const rows: Array<[string | undefined, string | null]> = [
    ['Bearer abc', 'abc'], ['bearer abc', 'abc'], ['Bearer  abc  ', 'abc'], ['Bearer', null], ['Basic abc', null],
    ['Bearer a b', null], [undefined, null], ['', null], [`Bearer ${'x'.repeat(513)}`, null],
    ['Bearer abc\u00E9', null], ['Bearer ab\u00E9c', null], ['Bearer abc\u00A0', null], ['Bearer abc\u0085', null],
    ['Bearer abc\uFFFD', null], ['Bearer abc\u0000', null], ['Bearer \u0430bc', null],
  ]
  for (const [header, token] of rows) t.equal(bearerToken(header), token, JSON.stringify(header))
})

t.test('digest comparison', async (t) => {
  const h = hashSecret('s')
  t.ok(digestsEqual(h, h))
  t.notOk(digestsEqual(h, hashSecret('t')))
  t.notOk(digestsEqual(h, h.slice(0, 10)))
  t.notOk(digestsEqual('', ''))
  t.equal(parseApiKey('pl_short_x'), null)
})
