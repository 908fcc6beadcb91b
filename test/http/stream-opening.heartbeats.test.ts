/**
 * The heartbeat of a front worker's open streams (src/http/stream-opening.ts, spread by src/streams/stream-heartbeats.ts)
 * on real timers: every open stream gets one heartbeat per STREAM_HEARTBEAT_MS, but no turn of the event loop
 * heartbeats them all. Issue 23: with 10,000 streams, one loop over all of them held the front for 200 ms and more
 * (measured with `npm run bench:streams`), and a presence change arriving then reached its streams that much later.
 */
import t from 'tap'
import type { RouteKit } from '../../src/http/route-kit.js'
import { createStreamOpening, type OpenStream } from '../../src/http/stream-opening.js'
import { createLogger } from '../../src/lib/logger.js'
import { createStreamHub } from '../../src/streams/stream-hub.js'
import { eventually, testConfig, uniqueName } from '../helpers/stack.js'

const STREAMS = 1000

/** Heartbeats handed out in one turn of the event loop, turn by turn (a turn ends at the next setImmediate). */
const turns: number[] = []
let inTurn = false
function countTurn(): void {
  if (!inTurn) {
    inTurn = true
    turns.push(0)
    setImmediate(() => (inTurn = false))
  }
  turns[turns.length - 1]!++
}

interface Counted extends OpenStream {
  beats: number
  ended: number
}

function stream(): Counted {
  const s: Counted = {
    beats: 0,
    ended: 0,
    heartbeat() {
      s.beats++
      countTurn()
    },
    end() {
      s.ended++
    },
  }
  return s
}

t.test('every open stream gets its heartbeat each interval, never all of them in one turn', async (t) => {
  const config = testConfig(uniqueName(), { STREAM_HEARTBEAT_MS: '1000' })
  // Nothing here opens or subscribes: the hub reads nothing, and the kit (the checks of an opening) is never called.
  const hub = createStreamHub({ lookup: async () => [] })
  t.teardown(() => hub.close())
  const opening = createStreamOpening(config, createLogger('test', 'silent'), {} as RouteKit, { hub })
  t.teardown(() => opening.closeAll())

  const streams = Array.from({ length: STREAMS }, stream)
  for (const s of streams) opening.opened('sse', s)
  await eventually(async () => (streams.every((s) => s.beats >= 2) ? true : undefined), 10_000, 'two heartbeats for every stream')

  const largest = Math.max(...turns)
  t.ok(largest < STREAMS / 2, `at most ${largest} of the ${STREAMS} streams got their heartbeat in one turn`)
  const beats = streams.map((s) => s.beats)
  t.ok(Math.max(...beats) - Math.min(...beats) <= 1, 'every stream got as many heartbeats as any other, give or take the one due now')

  const gone = streams.slice(0, 100)
  for (const s of gone) opening.closed('sse', 'client', s, 0)
  const at = gone.map((s) => s.beats)
  const left = streams.slice(100)
  const target = Math.max(...left.map((s) => s.beats)) + 2
  await eventually(async () => (left.every((s) => s.beats >= target) ? true : undefined), 10_000, 'two more heartbeats for the open streams')
  t.same(gone.map((s) => s.beats), at, 'a closed stream gets no more heartbeats')

  const late = stream()
  opening.opened('ws', late)
  await eventually(async () => (late.beats >= 1 ? true : undefined), 10_000, 'a heartbeat for a stream opened later')

  opening.closeAll()
  t.same(new Set([...left, late].map((s) => s.ended)), new Set([1]), 'closeAll ends every open stream once')
  t.same(new Set(gone.map((s) => s.ended)), new Set([0]), 'and none of the closed ones')
  const after = [...left, late].map((s) => s.beats)
  await new Promise((resolve) => setTimeout(resolve, 1200))
  t.same([...left, late].map((s) => s.beats), after, 'no heartbeat after closeAll')
})
