/** The stream protocol's wire format and limit decisions (src/streams/model/stream-protocol.ts), table-driven, hostile input included. */
import t from 'tap'
import { renderCallbackBlock, renderRpcBlock } from '../../../src/presence/model/blocks.js'
import {
  parseStreamView,
  readMessageCodes,
  sseBlock,
  sseError,
  streamOpenRefusal,
  subscriptionRefusal,
  wsAck,
  wsBlock,
  wsError,
} from '../../../src/streams/model/stream-protocol.js'

/** What an SSE client does with an event's data lines (the HTML standard's rules). */
function sseData(event: string): string {
  const lines = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
  return lines.join('\n')
}

t.test('an SSE block event gives the client the block text byte for byte', async (t) => {
  const blocks = [
    renderCallbackBlock('AB12', { kind: 'active', username: 'Builderman', activity: 'Playing,\nMinecraft;\n' }),
    renderCallbackBlock('AB12', { kind: 'active', username: 'x', activity: '' }),
    renderCallbackBlock('ZZZZ', { kind: 'not_found' }),
    renderCallbackBlock('ZZZZ', { kind: 'banned', username: 'evil\nname; 👍🏽' }),
    renderRpcBlock('ZZZZ', { kind: 'paused' }),
    renderCallbackBlock('AB12', { kind: 'active', username: 'Long_1', activity: `Playing,\n${'y'.repeat(4000)};\n` }),
  ]
  for (const block of blocks) {
    const event = sseBlock(7, block)
    t.ok(event.startsWith('event: block\nid: 7\n'))
    t.ok(event.endsWith('\n\n'), 'ends with the blank line')
    t.notOk(event.slice(0, -2).includes('\n\n'), 'no blank line inside the event')
    t.equal(sseData(event), block)
  }
})

t.test('an SSE error is one JSON data line', async (t) => {
  const event = sseError('slow_consumer', 'line one\nline two')
  t.equal(event, `event: error\ndata: ${JSON.stringify({ code: 'slow_consumer', message: 'line one\nline two' })}\n\n`)
})

t.test('WebSocket messages', async (t) => {
  t.same(JSON.parse(wsBlock('AB12', '{AB12;\nx;\n}\n')), { op: 'block', code: 'AB12', block: '{AB12;\nx;\n}\n' })
  t.same(JSON.parse(wsAck('subscribed', ['AB12'])), { op: 'subscribed', codes: ['AB12'] })
  t.same(JSON.parse(wsError('invalid_code', 'm')), { op: 'error', code: 'invalid_code', message: 'm' })
  t.same(JSON.parse(wsError('too_many_codes', 'm', ['AB12'])), { op: 'error', code: 'too_many_codes', message: 'm', codes: ['AB12'] })
})

t.test('message codes: distinct in first-seen order, or the entries that are not codes', async (t) => {
  const cases: [string[], ReturnType<typeof readMessageCodes>][] = [
    [[], { ok: true, codes: [] }],
    [['AB12', 'CD34', 'AB12'], { ok: true, codes: ['AB12', 'CD34'] }],
    [['ab12'], { ok: false, invalid: ['ab12'] }],
    [['AB12', '%26', 'AB1'], { ok: false, invalid: ['%26', 'AB1'] }],
    [['x'.repeat(4000)], { ok: false, invalid: ['x'.repeat(16)] }],
    [['AB12\n'], { ok: false, invalid: ['AB12\n'] }],
  ]
  for (const [input, want] of cases) t.same(readMessageCodes(input), want, JSON.stringify(input).slice(0, 40))
})

t.test('view parameter', async (t) => {
  t.equal(parseStreamView(undefined), 'callbacks')
  t.equal(parseStreamView(''), 'callbacks')
  t.equal(parseStreamView('callbacks'), 'callbacks')
  t.equal(parseStreamView('rpc'), 'rpc')
  t.equal(parseStreamView('RPC'), undefined)
  t.equal(parseStreamView('json'), undefined)
})

t.test('limit decisions', async (t) => {
  t.equal(streamOpenRefusal(0, 1), null)
  t.match(streamOpenRefusal(1, 1), { code: 'too_many_streams', status: 429 })
  t.equal(subscriptionRefusal(0, 200, 200, 0, 1000), null)
  t.match(subscriptionRefusal(150, 51, 200, 0, 1000), { code: 'too_many_codes', status: 400 })
  t.match(subscriptionRefusal(0, 10, 200, 995, 1000), { code: 'stream_capacity', status: 503 })
  t.equal(subscriptionRefusal(0, 0, 200, 1000, 1000), null, 'adding nothing is never refused')
})
