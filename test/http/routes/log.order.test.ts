/**
 * The order delivery relies on (docs/delivery.md: entries of a category go out in id order): an event answered 200
 * before another was sent is stored with a lower id, whichever client sent each, with the front batching and the
 * worker committing groups while many clients post at once.
 */
import { performance } from 'node:perf_hooks'
import t from 'tap'
import { eventually, postJson, startStack } from '../../helpers/stack.js'

const CLIENTS = 8
const PER_CLIENT = 40

t.test('an event answered before another was sent has the lower id, across clients and batches', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: ['log'] })
  const auth = `Bearer ${stack.apiKey}`
  const sent = new Map<string, { sentAt: number; answeredAt: number }>()
  const client = async (c: number) => {
    for (let i = 0; i < PER_CLIENT; i++) {
      const description = `order#${c}#${i}`
      const sentAt = performance.now()
      const res = await postJson(`${stack.api}/log/server`, { event_type: 'ordered', description }, auth)
      if (res.status !== 200) throw new Error(`${description}: ${res.status}`)
      sent.set(description, { sentAt, answeredAt: performance.now() })
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
  const rows = await eventually(async () => {
    const found = await stack.db.selectFrom('log_entries').select(['id', 'description']).where('event_type', '=', 'ordered').execute()
    return found.length === CLIENTS * PER_CLIENT ? found : undefined
  }, 20_000, 'every event stored')
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
    const ids = Array.from({ length: PER_CLIENT }, (_, i) => idOf.get(`order#${c}#${i}`)!)
    t.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), `client ${c}: ids rise in the order it sent`)
  }
})
