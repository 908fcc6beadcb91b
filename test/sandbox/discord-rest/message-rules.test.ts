import t from 'tap'
import { checkMessage } from '../../../src/sandbox/discord-rest/message-rules.js'

const tooLong = (max: number) => ({ _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` }] })

t.test('checkMessage', async (t) => {
  const cases: Array<[string, Record<string, unknown>, boolean, unknown]> = [
    ['plain content', { content: 'hello' }, true, { ok: true }],
    ['content with newlines and emoji', { content: 'line1\nline2 🎮\r\n' }, true, { ok: true }],
    ['2,000 emoji are within the limit', { content: '🎮'.repeat(2000) }, true, { ok: true }],
    ['2,001 characters', { content: 'x'.repeat(2001) }, true, { ok: false, error: 'invalidFormBody', errors: { content: tooLong(2000) } }],
    ['4,000-character content', { content: 'x'.repeat(4000) }, false, { ok: false, error: 'invalidFormBody', errors: { content: tooLong(2000) } }],
    ['empty message', { content: '' }, true, { ok: false, error: 'emptyMessage' }],
    ['empty edit is fine', { content: '' }, false, { ok: true }],
    ['embeds only', { embeds: [{ title: 'x' }] }, true, { ok: true }],
    ['components only', { components: [{ type: 1, components: [] }] }, true, { ok: true }],
    ['11 embeds', { embeds: Array.from({ length: 11 }, () => ({ title: 'x' })) }, true, { ok: false, error: 'invalidFormBody', errors: { embeds: tooLong(10) } }],
    [
      'field and title over their limits',
      { embeds: [{ title: 't'.repeat(257), fields: [{ name: 'ok', value: 'v'.repeat(1025) }] }] },
      true,
      { ok: false, error: 'invalidFormBody', errors: { embeds: { '0': { title: tooLong(256), fields: { '0': { value: tooLong(1024) } } } } } },
    ],
    [
      '26 fields',
      { embeds: [{ fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) }] },
      true,
      { ok: false, error: 'invalidFormBody', errors: { embeds: { '0': { fields: tooLong(25) } } } },
    ],
    ['footer and author', { embeds: [{ footer: { text: 'f'.repeat(2049) }, author: { name: 'a'.repeat(257) } }] }, true, {
      ok: false,
      error: 'invalidFormBody',
      errors: { embeds: { '0': { footer: { text: tooLong(2048) }, author: { name: tooLong(256) } } } },
    }],
    ['exactly 6,000 characters over two embeds', { embeds: [{ description: 'd'.repeat(4000) }, { description: 'd'.repeat(2000) }] }, true, { ok: true }],
    ['hostile non-object embed is ignored', { content: 'x', embeds: [null, 'str', 5] }, true, { ok: true }],
  ]
  for (const [name, body, requireBody, expected] of cases) t.same(checkMessage(body, requireBody), expected, name)
})
