/**
 * The order delivery relies on (docs/delivery.md: entries of a category go out in id order): an event answered 200
 * before another was sent is stored with a lower id, whichever client sent each, with the front batching and the
 * worker committing groups while many clients post at once; and the same when the worker meets the events as a
 * backlog (it was away while they were accepted), where it holds many batches at once.
 */
import { performance } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { createLogger } from '../../../src/lib/logger.js'
import { startConsumers } from '../../../src/runtime/consumers.js'
import { createProcessContext } from '../../../src/runtime/process-context.js'
import { eventually, postJson, startStack, type Stack } from '../../helpers/stack.js'

const CLIENTS = 8
const PER_CLIENT = 40

/** CLIENTS clients each post PER_CLIENT events of `tag` one after the other; when each was sent and answered. */
async function post(stack: Stack, tag: string): Promise<Map<string, { sentAt: number; answeredAt: number }>> {
  const auth = `Bearer ${stack.apiKey}`
  const sent = new Map<string, { sentAt: number; answeredAt: number }>()
  const client = async (c: number) => {
    for (let i = 0; i < PER_CLIENT; i++) {
      const description = `${tag}#${c}#${i}`
      const sentAt = performance.now()
      const res = await postJson(`${stack.api}/log/server`, { event_type: tag, description }, auth)
      if (res.status !== 200) throw new Error(`${description}: ${res.status}`)
      sent.set(description, { sentAt, answeredAt: performance.now() })
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
  return sent
}

/** Waits for every event of `tag`, then checks that an event answered before another was sent has the lower id. */
async function checkOrder(t: Test, stack: Stack, tag: string, sent: Map<string, { sentAt: number; answeredAt: number }>): Promise<void> {
  const rows = await eventually(async () => {
    const found = await stack.db.selectFrom('log_entries').select(['id', 'description']).where('event_type', '=', tag).execute()
    return found.length === CLIENTS * PER_CLIENT ? found : undefined
  }, 30_000, `every ${tag} event stored`)
  const idOf = new Map(rows.map((r) => [r.description, BigInt(r.id)]))
  const events = [...sent].map(([description, times]) => ({ description, ...times, id: idOf.get(description)! }))
  const violations: string[] = []
  for (const a of events) {
    for (const b of events) {
      if (a.answeredAt < b.sentAt && a.id > b.id) violations.push(`${a.description} (id ${a.id}) answered before ${b.description} (id ${b.id}) was sent`)
    }
  }
  t.same(violations.slice(0, 5), [], `${violations.length} pairs out of order`)
  for (let c = 0; c < CLIENTS; c++) {
    const ids = Array.from({ length: PER_CLIENT }, (_, i) => idOf.get(`${tag}#${c}#${i}`)!)
    t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), `client ${c}: ids rise in the order it sent`)
  }
}

t.test('an event answered before another was sent has the lower id, across clients and batches', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })

  t.test('as a backlog: the worker starts after every event was accepted', async (t) => {
    const sent = await post(stack, 'ordered_backlog')
    const ctx = createProcessContext('worker', stack.config, createLogger('worker', stack.config.logLevel))
    t.teardown(() => ctx.shutdown.run('test done'))
    await startConsumers(ctx, ['log'])
    await checkOrder(t, stack, 'ordered_backlog', sent)

    t.test('live: the worker stores while the clients post', async (t) => {
      await checkOrder(t, stack, 'ordered_live', await post(stack, 'ordered_live'))
    })
  })
})
