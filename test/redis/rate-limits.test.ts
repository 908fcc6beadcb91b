/**
 * Per-client rate limits on the real Redis (src/redis/rate-limits.ts, scripts/rate-limit-spend.lua): checks that
 * arrive together go to Redis in one call and each gets its exact count, two fronts share one budget exactly, and a
 * client over its budget is refused from memory until its window ends, in a bounded table.
 */
import t from 'tap'
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/config.js'
import { createRedis, waitReady } from '../../src/redis/connection.js'
import { createRateLimiter, createRateLimits, type RateLimitOutcome, type WindowSlots } from '../../src/redis/rate-limits.js'
import { commandsDuring } from '../../tools/harness/redis-monitor.js'
import { startStack } from '../helpers/stack.js'

const limitsOf = (callbacks: { points: number; seconds: number }): RateLimits => ({ ...DEFAULT_RATE_LIMITS, callbacks })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** The next turn of the event loop: far within SPARE_LINGER_MS however busy the machine, unlike a timer of 1 ms. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** Script calls naming `prefix` (EVALSHA or EVAL, not the commands they run) while `work` runs. */
async function scriptCalls(redisUrl: string, prefix: string, work: () => Promise<void>): Promise<number> {
  const commands = await commandsDuring(redisUrl, work)
  return commands.filter((args) => {
    const name = args[0]?.toLowerCase()
    return (name === 'evalsha' || name === 'eval') && args.some((a) => a.startsWith(`${prefix}:`))
  }).length
}

t.test('rate limits on Redis', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const { redis } = stack
  const keys = stack.ctx.keys
  const countOf = async (route: string, client: string) => redis.get(`${keys.rateLimitPrefix(route)}:${client}`)
  const connection = async (name: string) => {
    const conn = createRedis(stack.config.redisUrl, 'request', name)
    t.teardown(() => conn.disconnect())
    await waitReady(conn)
    return conn
  }

  t.test('many clients checked in one turn get their exact counts from one script call per batch', async (t) => {
    const check = createRateLimits(await connection('batch'), keys, limitsOf({ points: 5, seconds: 10 }))
    const clients = Array.from({ length: 300 }, (_, i) => `198.51.${Math.floor(i / 250)}.${i % 250}`)
    // One call first, so the script is in Redis's cache: a first EVALSHA refused with NOSCRIPT is sent again as EVAL,
    // and the monitor would count that call twice. Its spare (asked for after its answer) goes before the count starts.
    await check('callbacks', '198.51.9.9')
    await sleep(50)
    let outcomes: RateLimitOutcome[][] = []
    const calls = await scriptCalls(stack.config.redisUrl, keys.prefix, async () => {
      outcomes = await Promise.all(clients.map((client) => Promise.all(Array.from({ length: 7 }, () => check('callbacks', client)))))
    })
    for (const [i, client] of clients.entries()) {
      const got = outcomes[i]!.map((o) => (o.ok ? `ok ${o.state!.remaining}` : o.retryAfterSeconds >= 1 && o.retryAfterSeconds <= 10 ? '429' : `429 after ${o.retryAfterSeconds} s`))
      if (i < 3 || i === clients.length - 1) t.same(got, ['ok 4', 'ok 3', 'ok 2', 'ok 1', 'ok 0', '429', '429'], client)
      else if (got.join() !== 'ok 4,ok 3,ok 2,ok 1,ok 0,429,429') t.fail(`${client}: ${got.join()}`)
    }
    t.equal(await countOf('callbacks', clients[0]!), '7', 'every check of the batch was counted in Redis')
    // 500 operations per call; a client whose checks straddle two calls has its first ones answered before the rest
    // are counted, and asks for a spare: those asks go together in one call more.
    t.ok(calls >= 1 && calls <= Math.ceil((clients.length * 7) / 500) + 1, `${clients.length * 7} checks in ${calls} script calls`)
  })

  t.test('asks for spares wait for the next request to share its script call, or go alone after SPARE_LINGER_MS', async (t) => {
    const check = createRateLimits(await connection('linger'), keys, limitsOf({ points: 5, seconds: 10 }))
    await check('callbacks', '198.51.7.0')
    await sleep(50)
    const clients = Array.from({ length: 20 }, (_, i) => `198.51.7.${i + 1}`)
    const calls = await scriptCalls(stack.config.redisUrl, keys.prefix, async () => {
      // One new client at a time, each in a turn of its own: each request is counted in a call of its own, and the
      // spare asked for after its answer rides with the next client's request (before: a call more for each spare, 40
      // in all).
      for (const client of clients) {
        t.equal((await check('callbacks', client)).ok, true)
        await nextTurn()
      }
      await sleep(50)
    })
    // One call more for the spare of the last client; a pause of several ms between two requests would let a spare go alone.
    t.ok(calls >= clients.length && calls <= clients.length + 3, `${clients.length} requests and their spares in ${calls} script calls`)
    for (const client of clients) t.equal(await countOf('callbacks', client), '2', `${client}: the request and its spare`)
    // Each spare answers its client's next request from memory; the new spares asked for then go together, one call
    // per SPARE_LINGER_MS (before: one call each).
    const again = await scriptCalls(stack.config.redisUrl, keys.prefix, async () => {
      for (const client of clients) {
        t.match(await check('callbacks', client), { ok: true, state: { remaining: 3 } })
        await nextTurn()
      }
      await sleep(50)
    })
    t.ok(again >= 1 && again < clients.length / 2, `the 20 next requests answered from their spares, their new spares asked for in ${again} calls`)
  })

  t.test("a client polling through two fronts gets its 101st request refused, and on both fronts after that", async (t) => {
    const fronts = [createRateLimits(await connection('front-a'), keys, DEFAULT_RATE_LIMITS), createRateLimits(await connection('front-b'), keys, DEFAULT_RATE_LIMITS)]
    const seen: string[] = []
    for (let i = 0; i < 100; i++) {
      const o = await fronts[i % 2]!('rpc', '203.0.113.20')
      seen.push(o.ok ? String(o.state!.remaining) : 'refused')
    }
    // Each answer is one place in the window; a front answering from its spare reports that place, so the order
    // can differ by one where the client moves between fronts.
    t.same([...seen].sort((a, b) => Number(b) - Number(a)), Array.from({ length: 100 }, (_, i) => String(99 - i)), 'every place of the window given once')
    t.match(await fronts[0]!('rpc', '203.0.113.20'), { ok: false, limit: 100, windowSeconds: 10 }, 'the 101st')
    t.match(await fronts[1]!('rpc', '203.0.113.20'), { ok: false }, 'and the 102nd, on the other front')

    const together = await Promise.all(Array.from({ length: 150 }, (_, i) => fronts[i % 2]!('rpc', '203.0.113.21')))
    t.equal(together.filter((o) => o.ok).length, 100, '150 checks at once through two fronts: exactly 100 allowed')
  })

  t.test('a client over its budget is refused from memory, without Redis, until its window ends', async (t) => {
    const check = createRateLimits(await connection('memory'), keys, limitsOf({ points: 3, seconds: 1 }))
    const client = '192.0.2.77'
    for (let i = 0; i < 3; i++) t.equal((await check('callbacks', client)).ok, true)
    const refusals = await Promise.all(Array.from({ length: 20 }, () => check('callbacks', client)))
    t.ok(refusals.every((o) => !o.ok && o.retryAfterSeconds === 1 && o.state.remaining === 0 && o.state.limit === 3), 'refused, with the same headers as from Redis')
    t.equal(await countOf('callbacks', client), '3', 'the refused requests never reached Redis')
    const left = await redis.pttl(`${keys.rateLimitPrefix('callbacks')}:${client}`)
    await sleep(Math.max(0, left) + 20)
    t.same(await check('callbacks', client), { ok: true, state: { limit: 3, remaining: 2, resetSeconds: 1 } }, 'a new window once the old one ended')
    // After an answer the front takes one spare point for the client's next request (none while the count is within
    // SPARE_RESERVE of the limit): counted in Redis once the ask has gone.
    await sleep(50)
    t.equal(await countOf('callbacks', client), '2', 'the request, and the spare taken for the next one')
  })

  t.test('the memory is bounded: a forgotten client is asked of Redis again, and still refused', async (t) => {
    const limiter = createRateLimiter(await connection('bounded'), keys, limitsOf({ points: 1, seconds: 60 }), { rememberedWindows: 10 })
    const clients = Array.from({ length: 50 }, (_, i) => `192.0.2.${i}`)
    for (const client of clients) t.equal((await limiter.check('callbacks', client)).ok, true)
    t.ok(limiter.remembered() <= 10, `${limiter.remembered()} windows remembered for ${clients.length} spent clients`)
    // Newest first: a client asked of Redis again is remembered anew and pushes older ones out.
    for (const client of [...clients].reverse()) t.equal((await limiter.check('callbacks', client)).ok, false, client)
    t.equal(await countOf('callbacks', clients[0]!), '2', 'a forgotten client was counted again in Redis')
    t.equal(await countOf('callbacks', clients[49]!), '1', 'a remembered one was not')
  })

  t.test("a client whose slots the caller keeps (the front's remembered clients) keeps its window and spare when the table forgets it", async (t) => {
    // A table of one window and two clients in turn: each new window pushes the other client's out. Without slots,
    // the spare taken for a client was lost with its window (counted in Redis, never spent), so every answer cost it
    // two places and its remaining went 9, 7, 5...
    const limiter = createRateLimiter(await connection('slots'), keys, limitsOf({ points: 10, seconds: 60 }), { rememberedWindows: 1 })
    const clients = ['192.0.2.201', '192.0.2.202']
    const slots = clients.map((): WindowSlots => ({}))
    const seen: string[][] = [[], []]
    for (let i = 0; i < 11; i++) {
      for (const [c, client] of clients.entries()) {
        const o = await limiter.check('callbacks', client, slots[c])
        seen[c]!.push(o.ok ? String(o.state!.remaining) : 'refused')
      }
      // The spare asked for after each answer arrives before the client's next request, as between real polls.
      await sleep(30)
    }
    for (const [c, client] of clients.entries()) {
      t.same(seen[c], ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', 'refused'], `${client}: every place of its window, then refused`)
      t.equal(await countOf('callbacks', client), '10', `${client}: counted in Redis exactly 10 times`)
    }
    t.ok(limiter.remembered() <= 1, 'the table stayed bounded')
  })

  t.test('two remembered pairs of one client (one IPv6 /64) share its budget: exactly 100 answered', async (t) => {
    const check = createRateLimits(await connection('pairs'), keys, DEFAULT_RATE_LIMITS)
    const pairs = [{} as WindowSlots, {} as WindowSlots]
    const seen: string[] = []
    for (let i = 0; i < 100; i++) {
      const o = await check('rpc', '2001:db8:0:7', pairs[i % 2])
      seen.push(o.ok ? String(o.state!.remaining) : 'refused')
      if (i % 10 === 9) await sleep(20)
    }
    t.same([...seen].sort((a, b) => Number(b) - Number(a)), Array.from({ length: 100 }, (_, i) => String(99 - i)), 'every place of the window given once')
    t.match(await check('rpc', '2001:db8:0:7', pairs[0]), { ok: false, limit: 100 }, 'the 101st, through the one pair')
    t.match(await check('rpc', '2001:db8:0:7', pairs[1]), { ok: false, limit: 100 }, 'and through the other')
    t.match(await check('rpc', '2001:db8:0:7'), { ok: false, limit: 100 }, 'and without slots')
  })

  t.test('a key that cannot be counted fails only its own check', async (t) => {
    const check = createRateLimits(await connection('wrongtype'), keys, DEFAULT_RATE_LIMITS)
    await redis.hset(`${keys.rateLimitPrefix('bind')}:192.0.2.200`, 'x', '1')
    const [bad, ...good] = await Promise.allSettled([check('bind', '192.0.2.200'), check('bind', '192.0.2.201'), check('bind', '192.0.2.202')])
    t.match(bad, { status: 'rejected', reason: { message: /WRONGTYPE/ } })
    t.same(good, [
      { status: 'fulfilled', value: { ok: true, state: { limit: 10, remaining: 9, resetSeconds: 60 } } },
      { status: 'fulfilled', value: { ok: true, state: { limit: 10, remaining: 9, resetSeconds: 60 } } },
    ])
  })

  t.test('counts from before (rate-limiter-flexible) are continued, and a count without an expiry gets a window', async (t) => {
    const check = createRateLimits(await connection('compat'), keys, DEFAULT_RATE_LIMITS)
    await redis.set(`${keys.rateLimitPrefix('log')}:192.0.2.210`, '29', 'EX', 40)
    const last = await check('log', '192.0.2.210')
    t.match(last, { ok: true, state: { limit: 30, remaining: 0 } })
    t.ok(last.state!.resetSeconds > 30 && last.state!.resetSeconds <= 40, `the window it had (${last.state!.resetSeconds} s left)`)
    const over = await check('log', '192.0.2.210')
    t.ok(!over.ok && over.retryAfterSeconds > 30 && over.retryAfterSeconds <= 40, 'refused until that window ends')
    await redis.set(`${keys.rateLimitPrefix('log')}:192.0.2.211`, '3')
    t.same(await check('log', '192.0.2.211'), { ok: true, state: { limit: 30, remaining: 26, resetSeconds: 60 } })
    const ttl = await redis.pttl(`${keys.rateLimitPrefix('log')}:192.0.2.211`)
    t.ok(ttl > 59_000 && ttl <= 60_000, `expires with its window (${ttl} ms)`)
  })
})
