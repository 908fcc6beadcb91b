/**
 * The near cache behind callbacks and rpc, against the real front and Redis: a front never serves a block older than
 * the last write once the change feed has delivered it, drops everything while its feed connection is down, judges
 * shard liveness when serving, stays within NEAR_CACHE_ENTRIES, and still charges the unknown-code budget.
 */
import t from 'tap'
import type { FrontObserver, ReadPathState } from '../../../src/http/front-observer.js'
import { followChangeFeed } from '../../../src/redis/change-feed.js'
import { createRedis } from '../../../src/redis/connection.js'
import { MARKS_REFRESH_MS } from '../../../src/redis/shard-marks.js'
import { eventually, getText, setShardMark, startStack, type Stack, type Teardown } from '../../helpers/stack.js'

/** An observer that keeps what the read path reports. */
function readPathProbe() {
  const probe = {
    hits: 0,
    misses: 0,
    evictions: 0,
    state: undefined as (() => ReadPathState) | undefined,
    observer: {} as FrontObserver,
  }
  probe.observer = {
    nearCache(hits, misses) {
      probe.hits += hits
      probe.misses += misses
    },
    nearCacheEvicted() {
      probe.evictions++
    },
    readPathState(state) {
      probe.state = state
    },
  }
  return probe
}

let user = 300000000000000000n

async function linked(stack: Stack, username: string): Promise<string> {
  const { code } = await stack.codes.issue(String(++user))
  const bound = await stack.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
  if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
  return code.code
}

const playing = (game: string) => `Playing,\n${game};\n`
const block = (code: string, username: string, activity: string) => `{${code};\n${username};\n${activity === '' ? 'No activity detected;\n' : activity}}\n`

/** A feed follower of the test's own, to know when a write has been delivered. */
async function testFollower(t: Teardown, stack: Stack) {
  const feed = await followChangeFeed(createRedis(stack.config.redisUrl, 'worker', `near-test-${process.pid}-${Date.now()}`), stack.ctx.keys)
  t.teardown(() => feed.close())
  let seen = 0
  feed.onChange(() => seen++)
  return { delivered: () => seen }
}

/** Kills the front's feed subscriber connection (and no other client: Redis is shared), found by its name. */
async function killFeedConnection(stack: Stack): Promise<void> {
  const list = String(await stack.redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
  const name = `presence-link:test:feed:${stack.ctx.keys.prefix}`
  const id = list.split('\n').find((line) => line.includes(`name=${name} `))?.match(/^id=(\d+)/)?.[1]
  if (id === undefined) throw new Error(`no connection named ${name}`)
  await stack.redis.call('CLIENT', 'KILL', 'ID', id)
}

t.test('near cache', async (t) => {
  const probe = readPathProbe()
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off', TRUST_PROXY: '127.0.0.1', UNKNOWN_CODE_BUDGET: '2' }, consumers: [], observer: probe.observer })
  await stack.presence.markLive(0, 3_600_000)
  await new Promise((resolve) => setTimeout(resolve, MARKS_REFRESH_MS + 200))
  const state = () => probe.state!()
  t.equal(state().feedLive, true, 'the feed is live once the front has started')

  t.test('a code hammered with writes while polled is never served older than the last write the feed delivered', async (t) => {
    const code = await linked(stack, 'Hammered')
    const follower = await testFollower(t, stack)
    const url = `${stack.api}/callbacks/${code}`
    // Pollers that keep reads in flight the whole time, so reads race the writes.
    let stop = false
    const pollers = Array.from({ length: 4 }, async () => {
      while (!stop) await getText(url)
    })
    const hitsBefore = probe.hits
    let stale = 0
    const WRITES = 150
    for (let i = 0; i < WRITES; i++) {
      const before = follower.delivered()
      let expected: string
      if (i % 25 === 24) {
        // A code write (pause) among the presence writes, then resume.
        await stack.codes.act(code, 'pause', { source: 'test' })
        await eventually(async () => (follower.delivered() > before ? true : undefined), 5000, 'the pause on the feed')
        expected = `{${code}:\n"Detection Paused";\n}\n`
        if ((await getText(url)).text !== expected) stale++
        const resumed = follower.delivered()
        await stack.codes.act(code, 'resume', { source: 'test' })
        await eventually(async () => (follower.delivered() > resumed ? true : undefined), 5000, 'the resume on the feed')
        expected = block(code, 'Hammered', playing(`Game ${i - 1}`))
      } else {
        await stack.presence.set(code, { shard: 0, status: 'online', activity: playing(`Game ${i}`) })
        await eventually(async () => (follower.delivered() > before ? true : undefined), 5000, 'the write on the feed')
        expected = block(code, 'Hammered', playing(`Game ${i}`))
      }
      if ((await getText(url)).text !== expected) stale++
    }
    stop = true
    await Promise.all(pollers)
    t.equal(stale, 0, `every poll after a delivered write shows that write (${WRITES} writes)`)
    t.ok(probe.hits > hitsBefore, 'some polls were answered from memory')
  })

  t.test('while the feed connection is down nothing is cached; writes made meanwhile are served; then caching resumes', async (t) => {
    const code = await linked(stack, 'Cut_Off')
    const url = `${stack.api}/callbacks/${code}`
    await stack.presence.set(code, { shard: 0, status: 'online', activity: playing('Before') })
    t.equal((await getText(url)).text, block(code, 'Cut_Off', playing('Before')))
    const warm = probe.hits
    t.equal((await getText(url)).text, block(code, 'Cut_Off', playing('Before')))
    t.equal(probe.hits, warm + 1, 'answered from memory while the feed is live')

    await killFeedConnection(stack)
    await eventually(async () => (state().feedLive ? undefined : true), 5000, 'the front to notice')
    t.equal(state().entries, 0, 'everything cached was dropped')
    // Reconnecting waits at least 200 ms, so this write is published while the front is not subscribed.
    await stack.presence.set(code, { shard: 0, status: 'online', activity: playing('During') })
    const misses = probe.misses
    t.equal((await getText(url)).text, block(code, 'Cut_Off', playing('During')), 'the write made while the feed was down is served')
    t.equal(probe.misses, misses + 1, 'read from Redis')

    await eventually(async () => (state().feedLive ? true : undefined), 10_000, 'the feed to be live again')
    t.equal((await getText(url)).text, block(code, 'Cut_Off', playing('During')))
    const hits = probe.hits
    t.equal((await getText(url)).text, block(code, 'Cut_Off', playing('During')))
    t.equal(probe.hits, hits + 1, 'cached again once live')
    await stack.presence.clear(code)
    t.equal(await eventually(async () => {
      const text = (await getText(url)).text
      return text === block(code, 'Cut_Off', '') ? text : undefined
    }, 5000, 'the clear'), block(code, 'Cut_Off', ''), 'invalidations work again after the reconnect')
  })

  t.test('a cached presence stops showing when its shard lapses and shows again when it comes back', async (t) => {
    const code = await linked(stack, 'Shard_Five')
    const url = `${stack.api}/rpc/${code}`
    await stack.presence.set(code, { shard: 5, status: 'online', activity: playing('Chess') })
    await stack.presence.markLive(5, 60_000)
    const live = `{${code};\n${playing('Chess')}}\n`
    const gone = `{${code};\n}\n`
    const read = async (want: string) => eventually(async () => ((await getText(url)).text === want ? want : undefined), 5000, want)
    t.equal(await read(live), live)
    const hits = probe.hits
    t.equal(await read(live), live)
    t.ok(probe.hits > hits, 'cached')
    // A lapse is not announced on the feed: the marks watcher notices it.
    await setShardMark(stack, 5, Date.now() - 1)
    t.equal(await read(gone), gone, 'the lapse hides the presence')
    await stack.presence.markLive(5, 60_000)
    t.equal(await read(live), live, 'the return shows it again')
  })

  t.test('unknown codes answered from memory are still charged to each client\'s budget', async (t) => {
    const one = { 'x-forwarded-for': '10.9.0.1' }
    const two = { 'x-forwarded-for': '10.9.0.2' }
    t.equal((await getText(`${stack.api}/callbacks/UNK1&UNK2`, one)).status, 200)
    const hits = probe.hits
    t.equal((await getText(`${stack.api}/callbacks/UNK1&UNK2`, two)).status, 200)
    t.equal(probe.hits, hits + 2, 'the second client was answered from memory')
    const third = await getText(`${stack.api}/callbacks/UNK3`, two)
    t.equal(third.status, 429, 'its budget of 2 was spent by the answers from memory')
    t.match(third.text, /unknown/)
    t.equal((await getText(`${stack.api}/callbacks/UNK1&UNK2`, two)).status, 200, 'codes already counted stay free')
  })

  t.test('an unknown code cached as not found shows once it is issued', async (t) => {
    const fresh = await stack.codes.issue(String(++user))
    // Issued codes are unknown until bound: cache the not-linked view, then bind.
    const url = `${stack.api}/callbacks/${fresh.code.code}`
    const headers = { 'x-forwarded-for': '10.9.0.3' }
    t.match((await getText(url, headers)).text, /Code not linked/)
    t.match((await getText(url, headers)).text, /Code not linked/)
    await stack.codes.bind(fresh.code.code, { platformUserId: '77', platformUsername: 'Late_Binder' }, { source: 'test' })
    const want = block(fresh.code.code, 'Late_Binder', '')
    t.equal(await eventually(async () => ((await getText(url, headers)).text === want ? want : undefined), 5000, 'the bind'), want)
  })
})

t.test('the cache holds at most NEAR_CACHE_ENTRIES codes; 0 turns it off', async (t) => {
  for (const entries of [3, 0]) {
    const probe = readPathProbe()
    const stack = await startStack(t, { env: { RATE_LIMITS: 'off', NEAR_CACHE_ENTRIES: String(entries) }, consumers: [], observer: probe.observer })
    const codes = []
    for (let i = 0; i < 6; i++) codes.push(await linked(stack, `Bounded_${i}`))
    for (const code of codes) await getText(`${stack.api}/callbacks/${code}`)
    t.equal(probe.state!().entries, entries, `${entries} entries held`)
    t.equal(probe.evictions, entries === 0 ? 0 : codes.length - entries, 'evictions counted')
    const misses = probe.misses
    t.equal((await getText(`${stack.api}/callbacks/${codes.join('&')}`)).status, 200)
    t.equal(probe.misses - misses, codes.length - entries, 'the codes not held are read from Redis')
  }
})
