/**
 * The limits of log batches on the real front and Redis: a batch is one request of `log` and one unit per event of
 * `log_events`; a 429 names the budget that ran out, a refused batch spends no event unit and stores nothing, and a
 * batch larger than the whole events budget is a 413 to split, not a 429 to wait out.
 */
import t from 'tap'
import { QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'
import { eventually, postJson, startStack, type Stack } from '../../helpers/stack.js'

let stack: Stack
let auth: string

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'log=4/60,log_events=150/60', TRUST_PROXY: '127.0.0.1' } })
  auth = `Bearer ${stack.apiKey}`
})

/** A batch of `n` events from client address `ip` (through the trusted proxy, so each test has budgets of its own). */
const post = (ip: string, prefix: string, n: number) =>
  postJson(
    `${stack.api}/log/server`,
    { events: Array.from({ length: n }, (_, i) => ({ event_type: `${prefix}${i}`, description: 'limited' })) },
    auth,
    { 'x-forwarded-for': ip },
  )

async function storedWith(prefix: string): Promise<number> {
  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  try {
    await eventually(async () => {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      return Object.values(c).every((n) => n === 0) ? true : undefined
    }, 20_000, 'the log queue to drain')
  } finally {
    await queue.close()
  }
  const row = await stack.db
    .selectFrom('log_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event_type', 'like', `${prefix.replace(/_/g, '\\_')}%`)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

t.test('the events budget: a batch that does not fit is refused whole, naming log_events, and spends nothing', async (t) => {
  t.same((await post('198.51.100.1', 'lev_a', 100)).body, { status: 'logged', category: 'server', count: 100 })
  const refused = await post('198.51.100.1', 'lev_b', 100)
  t.equal(refused.status, 429)
  const retry = Number(refused.headers.get('retry-after'))
  t.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`)
  t.same(refused.body, {
    detail: {
      status: 'error',
      code: 'rate_limited',
      message: `rate limit exceeded: 150 events per 60 seconds per IP; retry in ${retry} s`,
      retry_after: retry,
      limit: 'log_events',
    },
  })
  t.same((await post('198.51.100.1', 'lev_c', 50)).body, { status: 'logged', category: 'server', count: 50 }, 'the refused batch spent none of the 50 left')
  t.equal((await post('198.51.100.1', 'lev_d', 1)).status, 429, 'and now the budget is spent')
  t.equal(await storedWith('lev_a'), 100)
  t.equal(await storedWith('lev_b'), 0)
  t.equal(await storedWith('lev_c'), 50)
  t.equal(await storedWith('lev_d'), 0)
})

t.test('the request budget: a batch is one request of log, and its 429 names log', async (t) => {
  for (let i = 0; i < 4; i++) t.equal((await post('198.51.100.2', `lreq_${i}_`, 1)).status, 200, `batch ${i + 1}`)
  const refused = await post('198.51.100.2', 'lreq_x_', 1)
  t.equal(refused.status, 429)
  t.match(refused.body, { detail: { code: 'rate_limited', limit: 'log', message: /4 requests per 60 seconds/ } })
  t.equal(await storedWith('lreq_x_'), 0)
})

t.test('a batch larger than the whole events budget is 413 batch_too_large with the budget as its maximum', async (t) => {
  const res = await post('198.51.100.3', 'lover_', 151)
  t.equal(res.status, 413)
  t.same(res.body, {
    detail: {
      status: 'error',
      code: 'batch_too_large',
      message: 'the batch has 151 events, more than the 150 events per 60 seconds a client may send: send smaller batches',
      max_events: 150,
    },
  })
  t.same((await post('198.51.100.3', 'lover_ok_', 150)).body, { status: 'logged', category: 'server', count: 150 }, 'nothing was spent')
  t.equal(await storedWith('lover_ok_'), 150)
})

t.test('single events spend only the request budget', async (t) => {
  t.same((await post('198.51.100.4', 'lsingle_batch_', 150)).body, { status: 'logged', category: 'server', count: 150 })
  const single = await postJson(`${stack.api}/log/server`, { event_type: 'lsingle_one', description: 'one' }, auth, { 'x-forwarded-for': '198.51.100.4' })
  t.same(single.body, { status: 'logged', category: 'server' }, 'with the events budget spent, a single event still goes')
})

