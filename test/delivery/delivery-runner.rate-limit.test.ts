/** Two delivery processes sharing one request budget against the sandbox's rate limit. */
import t from 'tap'
import { startDeliveryConsumer } from '../../src/runtime/consumers.js'
import { DefaultIds } from '../../src/sandbox/world.js'
import { postJson } from '../helpers/stack.js'
import { deliveryStack, entryIds, makeHook, recorded, requests, settled, startSandbox } from '../helpers/delivery-harness.js'

t.test('two categories on one webhook, posted by two delivery processes, stay under the shared budget without a 429', async (t) => {
  // The sandbox answers 429 beyond 10 requests per second on the webhook (above Discord's 5 per 2 s, so the shared
  // budget is what limits); the shared budget is 8 per second.
  const sandbox = await startSandbox(t, { rateLimits: { webhookExecute: { limit: 10, windowMs: 1000 } } })
  const hook = await makeHook(sandbox, DefaultIds.serverLog)
  const stack = await deliveryStack(t, sandbox, { DELIVERY_RATE_LIMIT: '8', LOG_DESTINATION_SERVER: hook.url, LOG_DESTINATION_INGAME: hook.url })
  const second = await startDeliveryConsumer({ db: stack.db, redis: stack.redis, keys: stack.ctx.keys, config: stack.config, log: stack.ctx.log })
  t.teardown(() => second.close())
  const auth = `Bearer ${stack.apiKey}`
  const jobs = ['server', 'ingame'].flatMap((category) => Array.from({ length: 150 }, (_, i) => ({ category, description: `${category} ${i}` })))
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
        const res = await postJson(`${stack.api}/log/${job.category}`, { event_type: 'load', description: job.description }, auth)
        if (res.status !== 200) throw new Error(`log answered ${res.status}`)
      }
    }),
  )
  const server = await settled(stack, 'server', 150, 60_000)
  const ingame = await settled(stack, 'ingame', 150, 60_000)
  const messages = await recorded(sandbox, { webhook_id: hook.id })
  const byCategory = (prefix: string) => messages.filter((m) => m.embeds[0]?.title.startsWith(prefix))
  t.same(entryIds(byCategory('Server log')), server.map((r) => r.id), 'server entries in order')
  t.same(entryIds(byCategory('In-game log')), ingame.map((r) => r.id), 'in-game entries in order')
  const counted = await requests(sandbox)
  t.same(Object.keys(counted.byRoute), ['POST /webhooks/:id/:token 200'], 'never rate limited')
  t.equal(counted.total, messages.length)
})
