/** The delivery consumer end to end against the Discord sandbox: order, batching, refusals, takeover and metrics. */
import t from 'tap'
import { Registry } from 'prom-client'
import { destinationsCommand, logsCommand } from '../../src/cli/in-process.js'
import { startDeliveryConsumer } from '../../src/runtime/consumers.js'
import { createDeliveryMetrics } from '../../src/metrics/delivery-metrics.js'
import { JobName, QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'
import { DefaultIds } from '../../src/sandbox/world.js'
import { call } from '../sandbox/fixtures/harness.js'
import { eventually, postJson, type Stack } from '../helpers/stack.js'
import { deliveryStack, entryIds, makeHook, recorded, requests, settled, startSandbox, type Hook } from '../helpers/delivery-harness.js'
import type { Sandbox } from '../../src/sandbox/create-sandbox.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

let sandbox: Sandbox
let stack: Stack
let ingameHook: Hook

const log = (category: string, body: Record<string, unknown>) => postJson(`${stack.api}/log/${category}`, body, `Bearer ${stack.apiKey}`)

const rowsOf = (category: string) =>
  stack.db.selectFrom('log_entries').selectAll().where('category', '=', category as 'server').orderBy('id').execute()

/** Points the server log at a fresh webhook and zeroes the sandbox's request counters. */
async function freshServerHook(): Promise<Hook> {
  const hook = await makeHook(sandbox, DefaultIds.serverLog)
  const out = await destinationsCommand(stack.ctx, ['set', 'server', hook.url])
  if (out.exitCode !== 0) throw new Error(out.lines.join('\n'))
  await call(sandbox, 'DELETE', '/control/requests')
  return hook
}

t.before(async () => {
  sandbox = await startSandbox(t)
  ingameHook = await makeHook(sandbox, DefaultIds.ingameLog)
  stack = await deliveryStack(t, sandbox, {
    LOG_DESTINATION_SERVER: DefaultIds.serverLog,
    LOG_DESTINATION_INGAME: ingameHook.url,
    LOG_DESTINATION_MODERATION: DefaultIds.moderationLog,
    // These tests check one embed per entry, even for a 500-entry burst that a webhook's bucket (5 per 2 s) takes about
    // 20 s to show; on a slow machine that could pass the 30 s digest trigger. Digest mode is tested on its own
    // (delivery-runner.digest.test.ts).
    DELIVERY_DIGEST_BACKLOG: '0',
    DELIVERY_DIGEST_AFTER_MS: '0',
  })
})

t.test('each category lands in its own channel or webhook, labeled with its title and colour', async (t) => {
  for (const category of ['server', 'ingame', 'moderation']) {
    const res = await log(category, { event_type: `${category}_event`, description: `about ${category}`, platform_username: 'Player_1', platform_user_id: 42, issued_by: 'Game' })
    t.equal(res.status, 200)
  }
  const expected = [
    ['server', DefaultIds.serverLog, 'Server log · server\\_event', 0x5865f2],
    ['ingame', DefaultIds.ingameLog, 'In-game log · ingame\\_event', 0x57f287],
    ['moderation', DefaultIds.moderationLog, 'Moderation log · moderation\\_event', 0xed4245],
  ] as const
  for (const [category, channel, title, color] of expected) {
    const [row] = await settled(stack, category, 1)
    const messages = await recorded(sandbox, { channel_id: channel })
    t.equal(messages.length, 1, `${category}: one message`)
    const message = messages[0]!
    t.equal(message.embeds.length, 1)
    t.match(message.embeds[0], {
      title,
      color,
      description: `about ${category}`,
      fields: [
        { name: 'Event', value: `${category}\\_event` },
        { name: 'Player', value: '[Player\\_1](https://www.roblox.com/users/42/profile) (42)' },
        { name: 'Issued by', value: 'Game' },
        { name: 'Source', value: 'api:test-server' },
      ],
      footer: { text: `Entry #${row!.id}` },
    })
    t.same(message.allowed_mentions, { parse: [] })
    const stored = await stack.db.selectFrom('log_entries').selectAll().where('id', '=', row!.id).executeTakeFirstOrThrow()
    t.equal(stored.delivery_state, 'sent')
    t.equal(stored.delivery_message_id, message.id, 'the Discord message id is stored')
    t.equal(message.embeds[0]!.timestamp, stored.received_at.toISOString())
  }
  t.equal((await recorded(sandbox, { channel_id: DefaultIds.ingameLog }))[0]?.webhook_id, ingameHook.id, 'the in-game log went through its webhook')
})

t.test('@everyone and user mentions in game text are inert', async (t) => {
  const hostile = '@everyone @here <@100000000000000101> <@&100000000000000021> ping!'
  await log('moderation', { event_type: 'chat_flag', description: hostile, issued_by: '@everyone' })
  await settled(stack, 'moderation', 2)
  const last = (await recorded(sandbox, { channel_id: DefaultIds.moderationLog })).at(-1)!
  t.same(last.allowed_mentions, { parse: [] }, 'nothing may be pinged')
  t.equal(last.content, '', 'no message content, where mentions would render')
  t.equal(last.embeds[0]?.description, '\\@everyone \\@here \\<\\@100000000000000101\\> \\<\\@&100000000000000021\\> ping!', 'escaped: shown as typed, never as a mention')
})

t.test('500 entries posted in a burst all arrive in order in at most 60 requests, with a second delivery process running', async (t) => {
  const second = await startDeliveryConsumer({ db: stack.db, redis: stack.redis, keys: stack.ctx.keys, config: stack.config, log: stack.ctx.log })
  t.teardown(() => second.close())
  const hook = await freshServerHook()
  const before = (await rowsOf('server')).length
  const descriptions = Array.from({ length: 500 }, (_, i) => `burst ${i} @everyone`)
  const queue = [...descriptions]
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      for (let d = queue.shift(); d !== undefined; d = queue.shift()) {
        const res = await log('server', { event_type: 'burst', description: d })
        if (res.status !== 200) throw new Error(`log answered ${res.status}`)
      }
    }),
  )
  const rows = (await settled(stack, 'server', before + 500, 60_000)).slice(before)
  t.same(new Set(rows.map((r) => r.description)), new Set(descriptions), 'all 500 stored')
  t.ok(rows.every((r) => r.delivery_state === 'sent'), 'all 500 sent')
  const messages = await recorded(sandbox, { webhook_id: hook.id })
  t.same(entryIds(messages), rows.map((r) => r.id), 'every entry arrived once, in id order across messages')
  const counted = await requests(sandbox)
  t.ok(counted.total <= 60, `${counted.total} requests for 500 entries`)
  t.same(Object.keys(counted.byRoute), ['POST /webhooks/:id/:token 200'], 'no request failed or was rate limited')
  t.equal(counted.total, messages.length)
  t.ok(messages.every((m) => m.embeds.length <= 10))
})

t.test('a webhook answering 429 with retry_after is waited out and nothing is lost', async (t) => {
  const hook = await freshServerHook()
  const before = (await rowsOf('server')).length
  t.equal((await call(sandbox, 'POST', `/control/webhooks/${hook.id}/fail`, { status: 429, count: 1, retry_after: 0.3 })).status, 200)
  for (const i of [1, 2, 3]) await log('server', { event_type: 'after_429', description: `entry ${i}` })
  const rows = (await settled(stack, 'server', before + 3)).slice(before)
  t.same(rows.map((r) => r.delivery_state), ['sent', 'sent', 'sent'])
  const messages = await recorded(sandbox, { webhook_id: hook.id })
  t.same(entryIds(messages), rows.map((r) => r.id), 'in order, once each')
  const counted = await requests(sandbox)
  t.equal(counted.byRoute['POST /webhooks/:id/:token 429'], 1, 'one 429')
  t.equal(counted.byRoute['POST /webhooks/:id/:token 200'], messages.length, 'then the same message again, successfully')
})

t.test('a 404 webhook disables its destination: entries stay pending until destinations retry, then arrive in order', async (t) => {
  const registry = new Registry()
  const watcher = await startDeliveryConsumer({ db: stack.db, redis: stack.redis, keys: stack.ctx.keys, config: stack.config, log: stack.ctx.log, metrics: createDeliveryMetrics(registry) })
  t.teardown(() => watcher.close())
  const gauge = async () => (await registry.getSingleMetric('presence_link_delivery_destination_disabled')!.get()).values.find((v) => v.labels.destination === 'server')?.value
  const hook = await freshServerHook()
  const before = (await rowsOf('server')).length
  await call(sandbox, 'POST', `/control/webhooks/${hook.id}/fail`, { status: 404, count: 1 })
  await log('server', { event_type: 'gone', description: 'first' })
  const disabled = await eventually(async () => {
    const row = await stack.db.selectFrom('log_destinations').selectAll().where('category', '=', 'server').executeTakeFirstOrThrow()
    return row.disabled_at === null ? undefined : row
  }, 10_000, 'the destination disabled')
  t.match(disabled.disabled_reason, /^404 10015: Unknown Webhook/)
  await log('server', { event_type: 'gone', description: 'second' })
  await eventually(async () => ((await rowsOf('server')).length === before + 2 ? true : undefined), 5000, 'second entry stored')
  t.equal(await eventually(async () => ((await gauge()) === 1 ? 1 : undefined), 5000, 'gauge at 1'), 1, 'the disabled gauge shows it')
  const list = await destinationsCommand(stack.ctx, ['list'])
  t.match(list.lines.find((l) => l.startsWith('server\t')), /\tdisabled since .*: 404 10015: Unknown Webhook\tpending 2,/)
  t.same((await rowsOf('server')).slice(before).map((r) => r.delivery_state), ['pending', 'pending'], 'nothing dropped, nothing sent')
  t.same((await requests(sandbox)).byRoute, { 'POST /webhooks/:id/:token 404': 1 }, 'one request, not hammered')

  const retried = await destinationsCommand(stack.ctx, ['retry', 'server'])
  t.same(retried, { lines: ['re-enabled server: 2 pending entries will be sent in order'], exitCode: 0 })
  const rows = (await settled(stack, 'server', before + 2)).slice(before)
  t.same(entryIds(await recorded(sandbox, { webhook_id: hook.id })), rows.map((r) => r.id))
  t.equal(await eventually(async () => ((await gauge()) === 0 ? 0 : undefined), 5000, 'gauge back at 0'), 0)
  t.same(await destinationsCommand(stack.ctx, ['retry', 'server']), { lines: ['server was not disabled: 0 pending entries'], exitCode: 0 })
})

t.test('logs replay sends a category again from a given time', async (t) => {
  const hook = await freshServerHook()
  const since = new Date()
  await log('server', { event_type: 'replayed', description: 'once more' })
  const entry = await eventually(async () => {
    const r = (await rowsOf('server')).find((x) => x.description === 'once more')
    return r?.delivery_state === 'sent' ? r : undefined
  }, 10_000, 'the entry sent')
  t.same(entryIds(await recorded(sandbox, { webhook_id: hook.id })), [entry.id])
  const out = await logsCommand(stack.ctx, ['replay', '--category', 'server', '--since', since.toISOString()])
  t.same(out, { lines: [`queued 1 server entries received since ${since.toISOString()} for delivery`], exitCode: 0 })
  await eventually(async () => ((await recorded(sandbox, { webhook_id: hook.id })).length === 2 ? true : undefined), 10_000, 'the replayed message')
  t.same(entryIds(await recorded(sandbox, { webhook_id: hook.id })), [entry.id, entry.id], 'the entry went out again')
  // The message reaches the sandbox before the runner records it: wait for the record, not only the message.
  const after = await eventually(async () => {
    const r = await stack.db.selectFrom('log_entries').selectAll().where('id', '=', entry.id).executeTakeFirstOrThrow()
    return r.delivery_state === 'sent' && r.delivery_message_id !== entry.delivery_message_id ? r : undefined
  }, 10_000, 'the replayed entry recorded as sent with its new message id')
  t.equal(after.delivery_state, 'sent')
  t.not(after.delivery_message_id, entry.delivery_message_id, 'the new message id is stored')
})

t.test('a category without a destination stores every entry and attempts nothing', async (t) => {
  t.same(await destinationsCommand(stack.ctx, ['unset', 'ingame']), {
    lines: ['note: LOG_DESTINATION_INGAME is set; the delivery consumer puts it back when it starts', 'removed the ingame destination: its new entries are stored and not delivered'],
    exitCode: 0,
  })
  const sent = (await recorded(sandbox, { webhook_id: ingameHook.id })).length
  await log('ingame', { event_type: 'player_join', description: 'nobody listens' })
  const row = await eventually(async () => {
    const r = (await rowsOf('ingame')).find((x) => x.description === 'nobody listens')
    return r?.delivery_state === 'none' ? r : undefined
  }, 5000, 'the entry marked none')
  t.equal(row.delivery_message_id, null)
  t.equal((await recorded(sandbox, { webhook_id: ingameHook.id })).length, sent, 'nothing posted')
  t.equal((await logsCommand(stack.ctx, ['replay', '--category', 'ingame', '--since', '2020-01-01'])).exitCode, 1, 'replay needs a destination')
  t.equal((await destinationsCommand(stack.ctx, ['set', 'ingame', ingameHook.url])).exitCode, 0)
})

t.test("the service's own moderation entries and the gateway's audit entries are delivered too", async (t) => {
  const before = (await recorded(sandbox, { channel_id: DefaultIds.moderationLog })).length
  const { code } = await stack.codes.issue('600000000000000001')
  await stack.codes.bind(code.code, { platformUserId: '77', platformUsername: 'Banned_One' }, { source: 'test' })
  await stack.codes.act(code.code, 'ban', { source: 'cli', name: 'cli:tester' })
  await settled(stack, 'moderation', 3)
  const banned = (await recorded(sandbox, { channel_id: DefaultIds.moderationLog })).slice(before).flatMap((m) => m.embeds)
  t.match(banned.at(-1), { title: 'Moderation log · code\\_ban', fields: [{ name: 'Event', value: 'code\\_ban' }, { name: 'Player', value: '[Banned\\_One](https://www.roblox.com/users/77/profile) (77)' }, { name: 'Issued by', value: 'cli:tester' }, { name: 'Code', value: `\`${code.code}\`` }, { name: 'Source', value: 'cli' }] })

  const hook = await freshServerHook()
  const audit = createQueue(QueueName.Audit, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => audit.close())
  await audit.add(JobName.Audit, {
    category: 'server', eventType: 'member_join', description: 'Newbie (123) joined', platformUsername: null, platformUserId: null,
    issuedBy: 'discord', code: null, source: 'gateway', sourceIp: null, data: { guild_id: DefaultIds.guild }, receivedAt: Date.now(),
  }, { jobId: 'join-123' })
  await eventually(async () => ((await recorded(sandbox, { webhook_id: hook.id })).length === 1 ? true : undefined), 10_000, 'the audit entry')
  t.match((await recorded(sandbox, { webhook_id: hook.id }))[0]!.embeds[0], { title: 'Server log · member\\_join', description: 'Newbie (123) joined', fields: [{ name: 'Event' }, { name: 'Issued by', value: 'discord' }, { name: 'Source', value: 'gateway' }] })
})
