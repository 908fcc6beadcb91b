/**
 * Digest mode end to end: a category flooded beyond what its chat channel's message bucket shows gets digest messages
 * (counts by event type, moderation and recent lines, the command that reads them all), every entry stays stored and
 * ends `sent` or `digested` (never both), the client meets no 429 storm, the metrics show it, and the destination goes
 * back to one embed per entry once it keeps up. Then the wait trigger, counted from a replay rather than from receipt.
 */
import { Registry } from 'prom-client'
import t from 'tap'
import { destinationsCommand, logsCommand } from '../../src/cli/in-process.js'
import { createDeliveryMetrics } from '../../src/metrics/delivery-metrics.js'
import { startDeliveryConsumer } from '../../src/runtime/consumers.js'
import { DefaultIds } from '../../src/sandbox/world.js'
import { seedEntries } from '../helpers/log-entry-seed.js'
import { eventually, postJson, startStack, type Stack } from '../helpers/stack.js'
import { entryIds, recorded, requests, startSandbox, type Recorded } from '../helpers/delivery-harness.js'
import type { Sandbox } from '../../src/sandbox/create-sandbox.js'

const TOKEN_ENV = (sandbox: Sandbox) => ({ RATE_LIMITS: 'off', DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase })

/** A stack with log and audit consumers, and a delivery consumer of its own whose metrics the test reads. */
async function stackWithMetrics(t: Parameters<typeof startStack>[0], sandbox: Sandbox, env: Record<string, string>): Promise<{ stack: Stack; registry: Registry }> {
  const stack = await startStack(t, { env: { ...TOKEN_ENV(sandbox), ...env }, consumers: ['log', 'audit'] })
  const registry = new Registry()
  const delivery = await startDeliveryConsumer({ db: stack.db, redis: stack.redis, keys: stack.ctx.keys, config: stack.config, log: stack.ctx.log, metrics: createDeliveryMetrics(registry) })
  t.teardown(() => delivery.close())
  return { stack, registry }
}

async function metricValue(registry: Registry, name: string, destination: string): Promise<number | undefined> {
  return (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.destination === destination)?.value
}

const isDigest = (m: Recorded) => / · digest of [\d,]+ entr/.test(m.embeds[0]?.title ?? '')

async function rowsOf(stack: Stack, category: string) {
  return stack.db
    .selectFrom('log_entries')
    .select(['id', 'event_type', 'delivery_state', 'delivery_message_id'])
    .where('category', '=', category as 'ingame')
    .orderBy('id')
    .execute()
}

t.test('a flood beyond the channel bucket is coalesced into digests, and one embed per entry comes back when it keeps up', async (t) => {
  // A channel that shows two messages per 4 s (5 entries a second): any flood outruns it.
  const sandbox = await startSandbox(t, { rateLimits: { messageCreate: { limit: 2, windowMs: 4000 } } })
  const { stack, registry } = await stackWithMetrics(t, sandbox, {
    LOG_DESTINATION_INGAME: DefaultIds.ingameLog,
    DELIVERY_DIGEST_BACKLOG: '100',
    DELIVERY_DIGEST_AFTER_MS: '0',
    DELIVERY_DIGEST_EVERY_MS: '1000',
  })
  const auth = `Bearer ${stack.apiKey}`
  const kinds = ['player_join', 'player_leave', 'player_join', 'chat_message']
  const events = Array.from({ length: 600 }, (_, i) =>
    i % 100 === 50
      ? { event_type: 'kick', description: `kicked for speed hacking #${i}`, platform_username: `Cheater_${i}`, platform_user_id: 5000 + i, issued_by: 'AntiCheat', code: 'K1CK' }
      : { event_type: kinds[i % kinds.length]!, description: `event ${i} @everyone`, platform_username: `Player_${i % 50}` },
  )
  const queue = [...events]
  const posting = Promise.all(
    Array.from({ length: 25 }, async () => {
      for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
        const res = await postJson(`${stack.api}/log/ingame`, e, auth)
        if (res.status !== 200) throw new Error(`log answered ${res.status}`)
      }
    }),
  )
  const entered = await eventually(async () => ((await metricValue(registry, 'presence_link_delivery_digest_mode', 'ingame')) === 1 ? true : undefined), 60_000, 'digest mode')
  t.ok(entered, 'digest mode entered under the flood (the gauge is 1)')
  await posting

  const rows = await eventually(async () => {
    const all = await rowsOf(stack, 'ingame')
    return all.length === events.length && all.every((r) => r.delivery_state !== 'pending') ? all : undefined
  }, 90_000, 'every entry delivered or digested')
  // Whether any flood entry goes out alone before the backlog reaches 100 depends on how fast this machine stores the
  // flood: all of it may be digested. The calm entries below show one embed per entry coming back.
  t.same(rows.filter((r) => r.delivery_state !== 'sent' && r.delivery_state !== 'digested'), [], 'each entry is sent or digested: none pending, none failed')
  t.ok(rows.some((r) => r.delivery_state === 'digested'), 'the flood was digested')
  await eventually(async () => ((await metricValue(registry, 'presence_link_delivery_digest_mode', 'ingame')) === 0 ? true : undefined), 30_000, 'digest mode left')

  const messages = await recorded(sandbox, { channel_id: DefaultIds.ingameLog })
  const digests = messages.filter(isDigest)
  const plain = messages.filter((m) => !isDigest(m))
  t.ok(digests.length >= 1, `${digests.length} digest messages`)
  const digested = rows.filter((r) => r.delivery_state === 'digested')
  const sent = rows.filter((r) => r.delivery_state === 'sent')
  t.same(entryIds(plain), sent.map((r) => r.id), 'the entries posted one by one are exactly the sent ones, in order')
  t.same(new Set(digested.map((r) => r.delivery_message_id)), new Set(digests.map((m) => m.id)), 'each digested entry names the digest that summarized it')
  t.ok(entryIds(plain).every((id) => !digested.some((r) => r.id === id)), 'no entry is both summarized and posted alone')

  for (const digest of digests) {
    const covered = digested.filter((r) => r.delivery_message_id === digest.id)
    const [summary, ...rest] = digest.embeds
    t.equal(summary!.title, `In-game log · digest of ${covered.length.toLocaleString('en-US')} entries`)
    t.equal(summary!.fields[0]?.value, `#${covered[0]!.id} – #${covered.at(-1)!.id}`)
    t.match(summary!.description, /Read them all: `presence-link logs search --category ingame --since \S+Z --until \S+Z`/)
    const counts = new Map<string, number>()
    for (const r of covered) counts.set(r.event_type.replace(/_/g, '\\_'), (counts.get(r.event_type.replace(/_/g, '\\_')) ?? 0) + 1)
    const shownCounts = new Map(summary!.fields.filter((f) => f.name.startsWith('By event type')).flatMap((f) => f.value.split('\n')).map((line) => {
      const [type, n] = line.split(' — ')
      return [type!, Number(n!.replace(/,/g, ''))] as const
    }))
    t.same(shownCounts, counts, 'counts by event type match what the digest covers')
    const kicks = covered.filter((r) => r.event_type === 'kick')
    const moderation = rest.find((e) => e.title.startsWith('Moderation entries'))
    if (kicks.length === 0) t.equal(moderation, undefined, 'no moderation lines, no moderation embed')
    else {
      t.equal(moderation!.title, `Moderation entries (${kicks.length})`)
      for (const k of kicks) t.match(moderation!.description, new RegExp(`\`#${k.id}\` \\S+ \\*\\*kick\\*\\* Cheater\\\\_\\d+ \\(\\d+\\) by AntiCheat \`K1CK\`: kicked for speed hacking #\\d+`), `kick #${k.id} shown`)
    }
    const recent = rest.find((e) => e.title === 'Most recent entries')
    t.match(recent?.description?.split('\n').at(-1), new RegExp(`^\`#${covered.filter((r) => r.event_type !== 'kick').at(-1)!.id}\` `), 'the most recent entry is shown last')
    t.notMatch(JSON.stringify(digest.embeds), /[^\\]@everyone/, 'mentions in game text stay inert')
  }
  const digestedKicks = digested.filter((r) => r.event_type === 'kick').length
  t.ok(digestedKicks > 0, `${digestedKicks} kicks reached moderators through a digest`)

  const counted = await requests(sandbox)
  const limited = counted.byRoute['POST /channels/:id/messages 429'] ?? 0
  t.ok(limited <= 2, `${limited} 429s for ${messages.length} messages: the client waits for the bucket`)
  t.equal(counted.byRoute['POST /channels/:id/messages 200'], messages.length)
  t.equal(await metricValue(registry, 'presence_link_delivery_digested_entries_total', 'ingame'), digested.length, 'the digested entries are counted')
  t.equal((await metricValue(registry, 'presence_link_delivered_entries_total', 'ingame')) ?? 0, sent.length, 'the entries sent alone are counted')

  // Caught up: a few entries go out one embed each again.
  for (const i of [1, 2, 3]) await postJson(`${stack.api}/log/ingame`, { event_type: 'after', description: `calm ${i}` }, auth)
  const calm = await eventually(async () => {
    const after = (await rowsOf(stack, 'ingame')).filter((r) => r.event_type === 'after')
    return after.length === 3 && after.every((r) => r.delivery_state === 'sent') ? after : undefined
  }, 30_000, 'the calm entries sent')
  const last = (await recorded(sandbox, { channel_id: DefaultIds.ingameLog })).at(-1)!
  t.notOk(isDigest(last))
  t.same(entryIds([last]), calm.map((r) => r.id), 'one message, one embed per entry')
  const list = await destinationsCommand(stack.ctx, ['list'])
  t.match(list.lines.find((l) => l.startsWith('ingame\t')), new RegExp(`\\tpending 0, sent ${sent.length + 3}, in digests ${digested.length}, failed 0, not delivered 0\\t`), 'destinations list counts them')
})

t.test('the wait trigger counts from a replay, not from receipt: old entries replayed start one by one, then the rest is digested', async (t) => {
  const sandbox = await startSandbox(t)
  const { stack } = await stackWithMetrics(t, sandbox, { DELIVERY_DIGEST_BACKLOG: '0', DELIVERY_DIGEST_AFTER_MS: '3000', DELIVERY_DIGEST_EVERY_MS: '1000' })
  // Stored an hour ago, never delivered (no destination then).
  const ids = await seedEntries(stack.db, { count: 200, ageDays: 1 / 24, state: 'none', tag: 'old_entry' })
  t.equal((await destinationsCommand(stack.ctx, ['set', 'server', DefaultIds.serverLog])).exitCode, 0)
  const since = new Date(Date.now() - 2 * 3600_000)
  t.same((await logsCommand(stack.ctx, ['replay', '--category', 'server', '--since', since.toISOString()])).exitCode, 0)
  const rows = await eventually(async () => {
    const all = await rowsOf(stack, 'server')
    return all.every((r) => r.delivery_state !== 'pending') ? all : undefined
  }, 60_000, 'the replayed entries delivered or digested')
  t.same(rows.map((r) => r.id), ids)
  const messages = await recorded(sandbox, { channel_id: DefaultIds.serverLog })
  t.notOk(isDigest(messages[0]!), 'the first message after the replay is entries, not a digest: an hour-old receipt is not a wait')
  t.equal(messages[0]!.embeds.length, 10)
  const digests = messages.filter(isDigest)
  t.ok(digests.length >= 1, 'once the oldest replayed entry waited 3 s with more than 50 behind it, the rest went into a digest')
  const sent = rows.filter((r) => r.delivery_state === 'sent').map((r) => r.id)
  t.same(entryIds(messages.filter((m) => !isDigest(m))), sent)
  t.equal(rows.filter((r) => r.delivery_state === 'digested').length + sent.length, 200, 'every entry accounted for')
  t.ok(sent.length >= 50, `${sent.length} entries were posted one by one first`)
})
