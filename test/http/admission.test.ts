/**
 * Harvesting codes through callbacks and rpc, performed against the real front over HTTP: one client sweeping codes
 * is stopped by the unknown-code budget while game servers polling linked codes are untouched, two fronts share the
 * budget, and one IPv6 /64 behind a trusted proxy is one client for the rate limit and the budget.
 */
import t from 'tap'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { Metric } from '../../src/metrics/metric-names.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startFront } from '../../src/runtime/front-runtime.js'
import { getText, startStack, type Stack } from '../helpers/stack.js'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
let next = 36 ** 3
/** `n` codes in sweep order, as a harvester would walk the space (skipping any in `avoid`). */
function sweep(n: number, avoid: ReadonlySet<string>): string[] {
  const out: string[] = []
  while (out.length < n) {
    let x = next++
    let code = ''
    for (let i = 0; i < 4; i++, x = Math.floor(x / 36)) code = ALPHABET[x % 36] + code
    if (!avoid.has(code)) out.push(code)
  }
  return out
}

let user = 300000000000000000n
async function linkedCode(stack: Stack, username: string): Promise<string> {
  const { code } = await stack.codes.issue(String(++user))
  const bound = await stack.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
  if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
  return code.code
}

const budgetMessage = (budget: number, retry: number) =>
  `too many unknown codes: this client asked for more than ${budget} distinct codes that are not linked to an account within 60 minutes; retry in ${retry} s\n`

t.test('one client sweeping codes is refused after the default budget; game servers polling linked codes are not', async (t) => {
  const registry = createMetricsRegistry()
  const observer = createFrontObserver(registry)
  const stack = await startStack(t, { env: { TRUST_PROXY: '127.0.0.1' }, consumers: [], observer })
  const second = await startFront(stack.ctx, observer)
  const api2 = `http://127.0.0.1:${second.port}/api/v1`
  const linked = [await linkedCode(stack, 'Poller_One'), await linkedCode(stack, 'Poller_Two')]
  const unlinked = (await stack.codes.issue(String(++user))).code.code
  const avoid = new Set([...linked, unlinked])
  const as = (ip: string) => ({ 'x-forwarded-for': ip })
  const attacker = as('198.51.100.66')
  const server = as('198.51.100.7')

  // 5 requests x 200 codes = the default budget of 1000, the unlinked code among them; each answers 200.
  const swept: string[][] = []
  for (let i = 0; i < 5; i++) {
    const codes = i === 0 ? [unlinked, ...sweep(199, avoid)] : sweep(200, avoid)
    swept.push(codes)
    const res = await getText(`${stack.api}/callbacks/${codes.join('&')}`, attacker)
    t.equal(res.status, 200, `sweep ${i + 1}`)
  }
  const over = await getText(`${stack.api}/callbacks/${sweep(200, avoid).join('&')}`, attacker)
  t.equal(over.status, 429, 'the 1001st unknown code is refused')
  const retry = Number(over.headers.get('retry-after'))
  t.ok(retry > 3500 && retry <= 3600, `Retry-After ${retry} is the rest of the hour`)
  t.match(over.headers.get('content-type'), /^text\/plain/)
  t.equal(over.text, budgetMessage(1000, retry))
  t.equal((await getText(`${stack.api}/rpc/${sweep(1, avoid)[0]}`, attacker)).status, 429, 'rpc shares the budget')
  t.equal((await getText(`${api2}/callbacks/${sweep(1, avoid)[0]}`, attacker)).status, 429, 'so does the second front')
  t.equal((await getText(`${stack.api}/callbacks/${swept[2]!.join('&')}`, attacker)).status, 200, 'codes already counted cost nothing again')

  const mine = await getText(`${stack.api}/callbacks/${linked.join('&')}`, attacker)
  t.equal(mine.status, 200, 'even the refused client may still poll linked codes')
  t.match(mine.text, /Poller_One;/)

  for (let i = 0; i < 40; i++) {
    const res = await getText(`${(i % 2 === 0 ? stack.api : api2)}/callbacks/${linked.join('&')}`, server)
    t.equal(res.status, 200)
    t.match(res.text, new RegExp(`^\\{${linked[0]};\\nPoller_One;\\nNo activity detected;\\n\\}\\n\\{${linked[1]};\\nPoller_Two;`))
  }
  const metric = await registry.getSingleMetricAsString(Metric.unknownCodeBudgetExhausted.name)
  t.match(metric, new RegExp(`^${Metric.unknownCodeBudgetExhausted.name} 1$`, 'm'), 'one client hit the budget, counted once')

  t.test('two fronts share one client\'s budget', async (t) => {
    const sweeper = as('198.51.100.77')
    for (let i = 0; i < 5; i++) {
      const res = await getText(`${i % 2 === 0 ? stack.api : api2}/rpc/${sweep(200, avoid).join('&')}`, sweeper)
      t.equal(res.status, 200, `sweep ${i + 1} on front ${(i % 2) + 1}`)
    }
    t.equal((await getText(`${api2}/rpc/${sweep(1, avoid)[0]}`, sweeper)).status, 429)
    t.equal((await getText(`${stack.api}/rpc/${sweep(1, avoid)[0]}`, sweeper)).status, 429)
    t.match(await registry.getSingleMetricAsString(Metric.unknownCodeBudgetExhausted.name), new RegExp(`^${Metric.unknownCodeBudgetExhausted.name} 2$`, 'm'))
  })
})

t.test('one IPv6 /64 behind a trusted proxy is one client', async (t) => {
  const stack = await startStack(t, {
    env: { TRUST_PROXY: '127.0.0.1', RATE_LIMITS: 'callbacks=5/60', UNKNOWN_CODE_BUDGET: '300' },
    consumers: [],
  })
  const avoid = new Set<string>()

  t.test('many addresses of one /64 share one rate limit, with RateLimit headers counting down', async (t) => {
    const seen: Array<[number, string | null, string | null]> = []
    for (let i = 1; i <= 6; i++) {
      const res = await getText(`${stack.api}/callbacks/ZZZZ`, { 'x-forwarded-for': `2001:db8:1:2::${i.toString(16)}` })
      seen.push([res.status, res.headers.get('ratelimit-limit'), res.headers.get('ratelimit-remaining')])
      const reset = Number(res.headers.get('ratelimit-reset'))
      t.ok(reset >= 0 && reset <= 60, `RateLimit-Reset ${reset}`)
    }
    t.same(seen, [
      [200, '5', '4'],
      [200, '5', '3'],
      [200, '5', '2'],
      [200, '5', '1'],
      [200, '5', '0'],
      [429, '5', '0'],
    ])
    t.equal((await getText(`${stack.api}/callbacks/ZZZZ`, { 'x-forwarded-for': '2001:db8:1:2:abcd:ef01:2345:6789' })).status, 429)
    t.equal((await getText(`${stack.api}/callbacks/ZZZZ`, { 'x-forwarded-for': '2001:db8:1:3::1' })).status, 200, 'the next /64 is another client')
  })

  t.test('many addresses of one /64 share one unknown-code budget', async (t) => {
    t.equal((await getText(`${stack.api}/rpc/${sweep(200, avoid).join('&')}`, { 'x-forwarded-for': '2001:db8:5:6::1' })).status, 200)
    const res = await getText(`${stack.api}/rpc/${sweep(200, avoid).join('&')}`, { 'x-forwarded-for': '2001:db8:5:6:ffff::2' })
    t.equal(res.status, 429)
    t.equal(res.text, budgetMessage(300, Number(res.headers.get('retry-after'))))
    t.equal(res.headers.get('ratelimit-limit'), '100', 'the RateLimit headers describe the route limit')
    t.equal((await getText(`${stack.api}/rpc/${sweep(200, avoid).join('&')}`, { 'x-forwarded-for': '2001:db8:5:7::1' })).status, 200, 'the next /64 has its own')
  })
})

t.test('UNKNOWN_CODE_BUDGET=0 turns the budget off', async (t) => {
  const stack = await startStack(t, { env: { UNKNOWN_CODE_BUDGET: '0', RATE_LIMITS: 'off' }, consumers: [] })
  const avoid = new Set<string>()
  for (let i = 0; i < 7; i++) {
    const res = await getText(`${stack.api}/callbacks/${sweep(200, avoid).join('&')}`)
    t.equal(res.status, 200)
    t.equal(res.headers.get('ratelimit-limit'), null, 'no RateLimit headers when limits are off')
  }
  t.equal((await stack.redis.keys(`${stack.config.redisPrefix}:unknown:*`)).length, 0)
})
