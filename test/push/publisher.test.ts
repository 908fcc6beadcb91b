/**
 * The push publisher against the real Redis, MariaDB, front and the sandbox's fake Open Cloud: a change reaches Open
 * Cloud as the callbacks block within a window; changes within one window share a message; blocks that would pass
 * 1 kB go as codes only; 429 and 500 are waited out and retried without hammering; a key Open Cloud refuses drops the
 * change; a universe seen before its key loads gets its first look when it does, and a change made while its key was
 * gone goes out when it is back; two publishers never send one change twice, and the second carries on when the first
 * stops.
 */
import t, { type Test } from 'tap'
import { eventually } from '../helpers/stack.js'
import { recordingMetrics, startPushWorld, type FakeMessage, type PushWorld } from '../helpers/push-world.js'

const parse = (m: FakeMessage) => JSON.parse(m.message) as { v: number; blocks?: Record<string, string>; codes?: string[] }

async function messagesAfter(world: { messages(u: number): Promise<FakeMessage[]> }, universe: number, count: number, what: string): Promise<FakeMessage[]> {
  return eventually(async () => {
    const all = await world.messages(universe)
    return all.length >= count ? all : undefined
  }, 20_000, what)
}

/** Attaches `universe`, links `n` codes and subscribes them as server job-1; returns the codes. */
async function subscribedCodes(world: PushWorld, universe: number, n: number): Promise<string[]> {
  await world.addUniverse(universe)
  const codes = await world.linkedCodes(n)
  await world.subscribe(universe, 'job-1', codes)
  return codes
}

/** `message` carries the block of `code` alone, exactly as callbacks answers it, showing `activity`. */
async function carriesOnly(t: Test, world: PushWorld, message: FakeMessage, code: string, activity: RegExp): Promise<void> {
  const blocks = parse(message).blocks ?? {}
  t.same(Object.keys(blocks), [code], 'only the changed code')
  t.equal(blocks[code], await world.callbacksBlock(code), 'exactly what GET /api/v1/callbacks answers')
  t.match(blocks[code], activity)
}

t.test('publisher', async (t) => {
  const world = await startPushWorld(t)
  const { record, metrics } = recordingMetrics()
  const codes = await world.linkedCodes(24)
  await world.startPublisher(metrics)

  t.test('a presence change reaches the fake Open Cloud as the callbacks block, and only the changed code', async (t) => {
    const universe = 1001
    await world.addUniverse(universe)
    const [a, b] = codes
    await world.subscribe(universe, 'job-1', [a!, b!])
    await world.waitRecorded(universe, [a!, b!])
    t.same(await world.messages(universe), [], 'subscribing publishes nothing: the server read the blocks itself')
    await world.play(a!, 'Chess')
    const [message] = await messagesAfter(world, universe, 1, 'the published change')
    t.equal(message!.topic, 'presence-link')
    await carriesOnly(t, world, message!, a!, /Playing,\nChess;\n/)
    t.equal(parse(message!).v, 1)
    t.ok(Buffer.byteLength(message!.message) <= 1024)
    t.ok(record.published.includes('blocks'))
    t.ok(record.lags.length > 0 && record.lags.every((s) => s >= 0))
  })

  t.test('changes within one window share one message, a code changed again goes once with its latest block', async (t) => {
    const universe = 1002
    await world.addUniverse(universe)
    const mine = codes.slice(2, 5)
    await world.subscribe(universe, 'job-1', mine)
    await world.waitRecorded(universe, mine)
    // Hold the publisher back with a 429 (Retry-After 2 s): what changes meanwhile must wait, merged, for one message.
    await fetch(`${world.sandbox.url}/control/open-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fail: 429, times: 1, retry_after: 2 }) })
    const coalescedBefore = record.coalesced
    await world.play(mine[0]!, 'Go')
    await eventually(async () => (record.failed.includes('rate_limited') ? true : undefined), 10_000, 'the 429')
    await world.play(mine[0]!, 'Checkers')
    await world.play(mine[0]!, 'Backgammon')
    await world.play(mine[1]!, 'Poker')
    const [message, ...rest] = await messagesAfter(world, universe, 1, 'the merged message')
    const body = parse(message!)
    t.same(Object.keys(body.blocks ?? {}).sort(), [mine[0], mine[1]].sort(), 'both codes in one message')
    t.match(body.blocks![mine[0]!], /Backgammon/, 'the latest block of a code changed three times')
    t.equal(body.blocks![mine[0]!], await world.callbacksBlock(mine[0]!))
    t.same(rest, [], 'no second message')
    t.ok(record.coalesced - coalescedBefore >= 3, `coalesced counted (${record.coalesced - coalescedBefore})`)
  })

  t.test('blocks that would pass 1 kB together go as the codes only', async (t) => {
    const universe = 1003
    await world.addUniverse(universe)
    const mine = codes.slice(5, 24)
    await world.subscribe(universe, 'job-1', mine)
    await world.waitRecorded(universe, mine)
    const spotify = 'Listening to Spotify,\nA Song Title That Is Fairly Long Indeed,\nThe Artist, Another Artist And Friends;\n'
    // One write naming every code: one feed message, so one window.
    await world.stack.presence.setMany(mine.map((code) => [code, { shard: 0, status: 'online', activity: spotify }] as const))
    const [message, ...rest] = await messagesAfter(world, universe, 1, 'the codes-only message')
    const body = parse(message!)
    t.equal(body.blocks, undefined)
    t.same([...(body.codes ?? [])].sort(), [...mine].sort(), 'every changed code')
    t.ok(Buffer.byteLength(message!.message) <= 1024, `${Buffer.byteLength(message!.message)} bytes`)
    t.same(rest, [])
    t.ok(record.published.includes('codes'))
  })

  t.test('a 500 twice is retried with backoff until it goes out; no request is wasted', async (t) => {
    const universe = 1004
    await world.addUniverse(universe)
    const [code] = codes.slice(0, 1)
    await world.subscribe(universe, 'job-9', [code!])
    await world.waitRecorded(universe, [code!])
    await fetch(`${world.sandbox.url}/control/requests`, { method: 'DELETE' })
    await fetch(`${world.sandbox.url}/control/open-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fail: 500, times: 2 }) })
    const failedBefore = record.failed.filter((f) => f === 'server_error').length
    await world.play(code!, 'Solitaire')
    const [message] = await messagesAfter(world, universe, 1, 'the retried message')
    t.match(parse(message!).blocks?.[code!], /Solitaire/)
    t.equal(record.failed.filter((f) => f === 'server_error').length - failedBefore, 2)
    const requests = (await (await fetch(`${world.sandbox.url}/control/requests`)).json()) as { byRoute: Record<string, number> }
    const route = 'POST /open-cloud/cloud/v2/universes/:universe:publishMessage'
    t.equal(requests.byRoute[`${route} 500`], 2, 'two refused attempts')
    t.ok((requests.byRoute[`${route} 200`] ?? 0) >= 1)
  })

  t.test('a key Open Cloud refuses (401) drops that change and says why', async (t) => {
    const universe = 1005
    await world.addUniverse(universe)
    const [code] = codes.slice(1, 2)
    await world.subscribe(universe, 'job-1', [code!])
    await world.waitRecorded(universe, [code!])
    await fetch(`${world.sandbox.url}/control/open-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys: { [universe]: 'another-key-entirely' } }) })
    await world.play(code!, 'Mahjong')
    await eventually(async () => (record.dropped.some(([reason]) => reason === 'refused') ? true : undefined), 10_000, 'the refused change dropped')
    t.ok(record.failed.includes('refused'))
    t.same(await world.messages(universe), [])
  })
})

t.test('a universe the publisher sees before its Open Cloud key gets its first look, and its changes go out once the key loads', async (t) => {
  const world = await startPushWorld(t)
  const universe = 3001
  const codes = await subscribedCodes(world, universe, 2)
  // The subscriptions stay; the key goes before any publisher runs, so its windows find none for the universe.
  await world.removeUniverse(universe)
  const { record, metrics } = recordingMetrics()
  await world.startPublisher(metrics)
  await world.waitRecorded(universe, codes)
  await world.play(codes[0]!, 'Chess')
  await eventually(async () => (record.dropped.some(([reason]) => reason === 'no_target') ? true : undefined), 10_000, 'the keyless change dropped')
  t.same(await world.messages(universe), [], 'nothing sent without a key')

  await world.addUniverse(universe)
  const [message, ...rest] = await messagesAfter(world, universe, 1, 'the keyless change published once the key loads')
  await carriesOnly(t, world, message!, codes[0]!, /Playing,\nChess;\n/)
  t.same(rest, [])

  t.test('a change while the key is gone goes out when it is back, as the current block', async (t) => {
    await world.removeUniverse(universe)
    const dropped = () => record.dropped.filter(([reason]) => reason === 'no_target').length
    const before = dropped()
    // The publisher reads the keys again within KEYS_RELOAD_MS: until then a change still goes out with the old one.
    let round = 0
    await eventually(async () => {
      if (dropped() > before) return true
      await world.play(codes[1]!, `Go ${++round}`)
      await new Promise((r) => setTimeout(r, 500))
      return undefined
    }, 25_000, 'a change dropped once the publisher finds the key gone')
    const sent = (await world.messages(universe)).length
    await world.play(codes[1]!, 'Shogi')
    await eventually(async () => (dropped() > before + 1 ? true : undefined), 10_000, 'the next change dropped too')
    t.equal((await world.messages(universe)).length, sent, 'nothing sent while the key is gone')
    await world.addUniverse(universe)
    const all = await messagesAfter(world, universe, sent + 1, 'the change published once the key is back')
    await carriesOnly(t, world, all[sent]!, codes[1]!, /Playing,\nShogi;\n/)
    await new Promise((r) => setTimeout(r, 2500))
    t.equal((await world.messages(universe)).length, sent + 1, 'once')
  })
})

t.test('two publishers: every change is published once, and the second carries on when the first stops', async (t) => {
  const world = await startPushWorld(t)
  const universe = 2001
  const codes = await subscribedCodes(world, universe, 3)
  const first = recordingMetrics()
  const second = recordingMetrics()
  const one = await world.startPublisher(first.metrics, 'publisher-1')
  const two = await world.startPublisher(second.metrics, 'publisher-2')
  await world.waitRecorded(universe, codes)
  const games = ['Chess', 'Go', 'Shogi', 'Xiangqi', 'Janggi']
  for (const [i, game] of games.entries()) {
    await world.play(codes[i % codes.length]!, game)
    await messagesAfter(world, universe, i + 1, `change ${i + 1}`)
  }
  // A window more, in case a second publisher were to send any of them again.
  await new Promise((r) => setTimeout(r, 2500))
  const sent = (await world.messages(universe)).map((m) => Object.values(parse(m).blocks ?? {}).join(''))
  for (const game of games) t.equal(sent.filter((s) => s.includes(`${game};`)).length, 1, `${game} published once`)
  t.equal(first.record.published.length + second.record.published.length, games.length, 'one publish per change over both')
  t.ok(first.record.published.length === 0 || second.record.published.length === 0, 'one publisher led the universe')
  const [leader, other] = first.record.published.length > 0 ? [one, second] : [two, first]

  t.test('the leader stops (giving its lease up); the other publishes the next change, once', async (t) => {
    await leader.close()
    const before = (await world.messages(universe)).length
    const otherBefore = other.record.published.length
    await world.play(codes[0]!, 'Reversi')
    const after = await messagesAfter(world, universe, before + 1, 'the change after the handover')
    t.match(parse(after[after.length - 1]!).blocks?.[codes[0]!], /Reversi/)
    t.equal(other.record.published.length - otherBefore, 1, 'published by the other publisher')
    t.equal(after.length, before + 1, 'once')
  })
})
