/**
 * Leaving the sandbox (issue 32): destinations a delivery consumer seeds against the sandbox are marked as the
 * sandbox's (`set by sandbox`, not `env:LOG_DESTINATION_*`); a consumer that does not run against the sandbox posts
 * nothing to them and says once how to remove them; `sandbox reset` lists them, then (with --yes) removes them and
 * sets the entries that waited for them aside; a real destination replacing a sandbox one sets its backlog aside too.
 */
import { Writable } from 'node:stream'
import t from 'tap'
import { pino } from 'pino'
import { Registry } from 'prom-client'
import { destinationsCommand } from '../../src/cli/in-process.js'
import { resolveCommand, runCommand } from '../../src/cli/dispatch.js'
import type { Config } from '../../src/config.js'
import { createDeliveryMetrics } from '../../src/metrics/delivery-metrics.js'
import { getDestination } from '../../src/mysql/destination-rows.js'
import { startDeliveryConsumer } from '../../src/runtime/consumers.js'
import type { Sandbox } from '../../src/sandbox/create-sandbox.js'
import { DefaultIds } from '../../src/sandbox/world.js'
import { recorded, startSandbox } from '../helpers/delivery-harness.js'
import { seedEntries } from '../helpers/log-entry-seed.js'
import { eventually, startStack, type Stack } from '../helpers/stack.js'

let sandbox: Sandbox
let stack: Stack

t.before(async () => {
  sandbox = await startSandbox(t)
  stack = await startStack(t, { front: false, consumers: [], env: { DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase, DELIVERY_BATCH_MS: '0' } })
})

/** Runs a delivery consumer with `overrides` until `until` holds; returns the lines it logged at warn and above. */
async function runConsumer(overrides: Partial<Config>, until: (registry: Registry, lines: string[]) => Promise<boolean>): Promise<string[]> {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter((l) => l !== ''))
      done()
    },
  })
  const registry = new Registry()
  const runner = await startDeliveryConsumer({
    db: stack.db,
    redis: stack.redis,
    keys: stack.ctx.keys,
    log: pino({ level: 'warn' }, sink),
    metrics: createDeliveryMetrics(registry),
    config: { ...stack.config, ...overrides },
  })
  try {
    await eventually(async () => ((await until(registry, lines)) ? true : undefined), 20_000, 'the consumer reached the expected state')
  } finally {
    await runner.close()
  }
  return lines.map((l) => (JSON.parse(l) as { msg: string }).msg)
}

const disabledGauge = async (registry: Registry, category: string) =>
  (await registry.getSingleMetric('presence_link_delivery_destination_disabled')!.get()).values.find((v) => v.labels.destination === category)?.value

const states = async () => (await stack.db.selectFrom('log_entries').select('delivery_state').orderBy('id').execute()).map((r) => r.delivery_state)
const serverLog = DefaultIds.serverLog
const againstSandbox: Partial<Config> = { sandbox: 'on', logDestinations: { server: serverLog, ingame: '', moderation: '' } }
const resetHint =
  "not delivering to the sandbox's destinations (server): this worker does not run against the sandbox. " +
  'Remove them with `presence-link sandbox reset --yes`, then set real ones (`presence-link destinations set CATEGORY TARGET` or LOG_DESTINATION_*); docs/discord.md'

t.test('sandbox reset resolves as a command; the sandbox process keeps its flags', async (t) => {
  t.match(resolveCommand(['sandbox', 'reset', '--yes']), { kind: 'admin', path: 'sandbox reset', args: { flags: { yes: true } } })
  t.match(resolveCommand(['sandbox', '--port', '8091']), { kind: 'process', args: { flags: { port: 8091 } } })
  t.equal((await runCommand(stack.ctx, ['sandbox', 'reset', '--force'])).exitCode, 2)
})

t.test('a sandbox run marks its destinations; a real run refuses them; sandbox reset removes them', async (t) => {
  t.same(await runCommand(stack.ctx, ['sandbox', 'reset']), { lines: ["nothing to reset: no log destination is the sandbox's"], exitCode: 0 })
  await seedEntries(stack.db, { count: 1, ageDays: 0, state: 'pending', tag: 'during-sandbox' })
  await runConsumer(againstSandbox, async () => (await states()).every((s) => s === 'sent'))
  t.equal((await recorded(sandbox, { channel_id: serverLog })).length, 1, 'delivered while running against the sandbox')
  t.match(await getDestination(stack.db, 'server'), { targetText: serverLog, setBy: 'sandbox', sandbox: true })

  const listed = `server\tchannel ${serverLog}\tactive\tpending 2, sent 1, in digests 0, failed 0, not delivered 0\tset by sandbox`
  await seedEntries(stack.db, { count: 2, ageDays: 0, state: 'pending', tag: 'after-sandbox' })
  const warned = await runConsumer({ sandbox: 'auto' }, async (registry, lines) => lines.length > 0 && (await disabledGauge(registry, 'server')) === 1)
  t.same(warned, [resetHint], 'one line, naming the reset')
  t.equal((await recorded(sandbox, { channel_id: serverLog })).length, 1, 'nothing more reached the sandbox channel')
  t.same(await states(), ['sent', 'pending', 'pending'])
  t.same((await destinationsCommand(stack.ctx, ['list'])).lines[0], listed, 'set by sandbox, not by an environment variable nobody set')

  t.same(await runCommand(stack.ctx, ['sandbox', 'reset']), {
    lines: [`server\tchannel ${serverLog}\tset by sandbox\tpending 2`, 'would remove 1 sandbox destination and set 2 pending entries aside; run `presence-link sandbox reset --yes` to do it'],
    exitCode: 0,
  })
  t.ok(await getDestination(stack.db, 'server'), 'the dry run changes nothing')
  t.same(await runCommand(stack.ctx, ['sandbox', 'reset', '--yes']), {
    lines: [
      `server\tchannel ${serverLog}\tset by sandbox\tpending 2`,
      'removed 1 sandbox destination (server); 2 entries that waited for them set aside: stored, not delivered (logs replay sends them again)',
    ],
    exitCode: 0,
  })
  t.equal(await getDestination(stack.db, 'server'), undefined)
  t.same(await states(), ['sent', 'none', 'none'])
  t.equal((await destinationsCommand(stack.ctx, ['list'])).lines[0], 'server\t(no destination)\t-\tpending 0, sent 1, in digests 0, failed 0, not delivered 2')
  t.same(await runCommand(stack.ctx, ['sandbox', 'reset', '--yes']), { lines: ["nothing to reset: no log destination is the sandbox's"], exitCode: 0 })
})

t.test("a real destination replacing the sandbox's sets the sandbox's backlog aside and gets only new entries", async (t) => {
  await stack.db.deleteFrom('log_entries').execute()
  await seedEntries(stack.db, { count: 1, ageDays: 0, state: 'pending', tag: 'sandbox-backlog' })
  // A sandbox run whose channel refuses nothing but whose entry is still pending when it stops: disable delivery by
  // pointing it at a channel the sandbox does not know (404 disables it), so the entry stays pending.
  await runConsumer({ sandbox: 'on', logDestinations: { server: '100000000000009999', ingame: '', moderation: '' } }, async (registry) => (await disabledGauge(registry, 'server')) === 1)
  t.match(await getDestination(stack.db, 'server'), { sandbox: true })
  t.same(await states(), ['pending'])
  const before = (await recorded(sandbox, { channel_id: serverLog })).length
  const real: Partial<Config> = { sandbox: 'off', logDestinations: { server: serverLog, ingame: '', moderation: '' } }
  await runConsumer(real, async () => (await getDestination(stack.db, 'server'))?.setBy === 'env:LOG_DESTINATION_SERVER')
  t.match(await getDestination(stack.db, 'server'), { sandbox: false, setBy: 'env:LOG_DESTINATION_SERVER', disabledAt: null })
  t.same(await states(), ['none'], "the sandbox's backlog is set aside, not posted to the real destination")
  await seedEntries(stack.db, { count: 1, ageDays: 0, state: 'pending', tag: 'real' })
  await runConsumer(real, async () => (await states())[1] === 'sent')
  t.equal((await recorded(sandbox, { channel_id: serverLog })).length, before + 1, 'the new entry is delivered')
})
