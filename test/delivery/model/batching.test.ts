/** Packing embeds into messages and choosing which go out now (src/delivery/model/batching.ts). */
import t from 'tap'
import { packMessages, readyCount, type Outgoing } from '../../../src/delivery/model/batching.js'
import { embedSize, renderEntryEmbed, type EntryView } from '../../../src/delivery/model/embeds.js'

const entry = (id: number, description = `entry ${id}`, firstSeenMs = 0): Outgoing => {
  const view: EntryView = {
    id: String(id),
    category: 'server',
    eventType: 'evt',
    description,
    platformUsername: null,
    platformUserId: null,
    issuedBy: null,
    code: null,
    source: 'api:test',
    receivedAt: new Date(0),
  }
  return { id: String(id), embed: renderEntryEmbed(view), firstSeenMs }
}

const ids = (messages: ReturnType<typeof packMessages>) => messages.map((m) => m.entries.map((e) => Number(e.id)))
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

t.test('packMessages', async (t) => {
  const cases: Array<[string, Outgoing[], number[][]]> = [
    ['no entries give no messages', [], []],
    ['one entry gives one message', [entry(1)], [[1]]],
    ['ten small entries share one message', range(1, 10).map((i) => entry(i)), [range(1, 10)]],
    ['the eleventh starts a second message, order kept', range(1, 25).map((i) => entry(i)), [range(1, 10), range(11, 20), range(21, 25)]],
    ['4,000-character descriptions go one per message (two exceed 6,000)', [entry(1, 'a'.repeat(4000)), entry(2, 'b'.repeat(4000)), entry(3)], [[1], [2, 3]]],
    ['an entry that would pass 6,000 characters closes the message before it', [entry(1, 'a'.repeat(1000)), entry(2, 'b'.repeat(1000)), entry(3, 'c'.repeat(4090))], [[1, 2], [3]]],
    ['emoji-heavy text counts code points', range(1, 4).map((i) => entry(i, '😀'.repeat(1900))), [[1, 2, 3], [4]]],
  ]
  for (const [name, input, expected] of cases) {
    t.test(name, async (t) => {
      const messages = packMessages(input)
      t.same(ids(messages), expected)
      for (const m of messages) {
        t.ok(m.entries.length <= 10)
        t.ok(m.size <= 6000)
        t.equal(m.size, m.entries.reduce((n, e) => n + embedSize(e.embed), 0))
      }
    })
  }

  t.test('500 entries pack into exactly 50 full messages, in order', async (t) => {
    const messages = packMessages(range(1, 500).map((i) => entry(i, `burst ${i} @everyone <@123>`)))
    t.equal(messages.length, 50)
    t.same(messages.flatMap((m) => m.entries.map((e) => Number(e.id))), range(1, 500))
  })

  t.test('an embed that could never fit a message is a bug, not a silent drop', async (t) => {
    t.throws(() => packMessages([entry(1)], { embeds: 10, characters: 10 }), /over the 10 limit/)
  })
})

t.test('readyCount', async (t) => {
  const at = (ms: number, n: number, from = 1) => packMessages(range(from, from + n - 1).map((i) => entry(i, `e${i}`, ms)))
  const cases: Array<[string, ReturnType<typeof packMessages>, number, number]> = [
    ['nothing pending sends nothing', [], 5000, 0],
    ['a young partial message waits for the window', at(1000, 3), 1500, 0],
    ['a partial message goes once its oldest entry waited the window', at(1000, 3), 2000, 1],
    ['a full message goes at once', at(1000, 10), 1000, 1],
    ['full messages go at once, a young partial tail waits', at(1000, 23), 1100, 2],
    ['after the window the partial tail goes too', at(1000, 23), 2000, 3],
  ]
  for (const [name, messages, nowMs, expected] of cases) {
    t.test(name, async (t) => t.equal(readyCount(messages, { nowMs, windowMs: 1000 }), expected))
  }
  t.test('a zero window sends everything at once', async (t) => t.equal(readyCount(at(1000, 3), { nowMs: 1000, windowMs: 0 }), 1))
})
