/**
 * Every /metrics endpoint passes `promtool check metrics`: the real front (cluster primary aggregating two workers),
 * worker and gateway entry points run as child processes against the local Redis, MariaDB and the Discord sandbox,
 * and each scrape is piped to promtool. Each part also reports `presence_link_build_info`.
 */
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createSandbox } from '../../src/sandbox/create-sandbox.js'
import { startEntryProcess, type EntryProcess } from '../helpers/entry-process.js'
import { run, skipUnlessTool, which } from '../helpers/ops-tools.js'
import { dropEverything, getText, testConfig, uniqueName } from '../helpers/stack.js'
import { freePort } from '../helpers/scratch.js'

// Three entry points each load the whole TypeScript source through tap's loader: slow on a busy 2-core machine.
t.setTimeout(300_000)

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const entry = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))

t.test('every /metrics endpoint passes promtool check metrics', { skip: await skipUnlessTool('promtool', 'prometheus') }, async (t) => {
  const name = uniqueName()
  const config = testConfig(name)
  const sandbox = await createSandbox({ port: 0, shardCount: 1 })
  const running: EntryProcess[] = []
  t.teardown(async () => {
    await Promise.all(running.map((p) => p.stop()))
    await sandbox.close()
    await dropEverything(config, name)
  })
  const common = { DATABASE_URL: config.databaseUrl, REDIS_URL: config.redisUrl, REDIS_PREFIX: name, DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase }

  // The worker and the front together (the front does not migrate); the gateway after the worker has migrated.
  const port = await freePort()
  const starting = [
    startEntryProcess(entry('workers/worker.ts'), { ...common, ROBLOX_USERS_API: sandbox.robloxBase, WORKER_METRICS_PORT: '0' }, 'worker', 'worker ready'),
    startEntryProcess(entry('src/front.ts'), { ...common, DISCORD_TOKEN: '', PORT: String(port), METRICS_PORT: '0', FRONT_WORKERS: '2', RATE_LIMITS: 'off' }, 'front', 'front listening'),
  ]
  const started = await Promise.allSettled(starting)
  for (const s of started) if (s.status === 'fulfilled') running.push(s.value)
  for (const s of started) if (s.status === 'rejected') throw s.reason
  const [worker, front] = running as [EntryProcess, EntryProcess]
  const gateway = await startEntryProcess(
    entry('src/gateway.ts'),
    { ...common, GUILD_WHITELIST: sandbox.defaultGuildId, SHARD_COUNT: '1', GATEWAY_METRICS_PORT: '0' },
    'gateway',
    'gateway metrics listening',
  )
  running.push(gateway)

  // Some traffic, so the front's histograms and error counters have series.
  const api = `http://127.0.0.1:${port}/api/v1`
  t.equal((await getText(`${api}/callbacks/ABCD`)).status, 200)
  t.equal((await getText(`${api}/rpc/ABCD&EFGH`)).status, 200)
  t.equal((await getText(`${api}/no/such/route`)).status, 404)

  const promtool = (await which('promtool')) ?? 'promtool'
  for (const [part, p] of [['front', front], ['worker', worker], ['gateway', gateway]] as const) {
    t.test(part, async (t) => {
      const res = await fetch(p.metrics)
      t.equal(res.status, 200)
      const text = await res.text()
      t.ok(text.length > 1000, `${part} serves metrics (${text.length} bytes)`)
      const lint = await run(promtool, ['check', 'metrics'], ROOT, {}, text)
      t.equal(lint.code, 0, `promtool check metrics exits 0 for ${part}:\n${lint.stdout}${lint.stderr}`)
      t.equal(`${lint.stdout}${lint.stderr}`.trim(), '', 'and reports no problem')
      t.match(text, /^presence_link_build_info\{version="\d+\.\d+\.\d+[^"]*",commit="(?:[0-9a-f]{7,40}|unknown)",node="v\d+\.\d+\.\d+"\} 1$/m, 'build info, once, with value 1')
      t.notMatch(text, /^nodejs_active_\w+_total/m, 'no gauge with a counter suffix')
      t.match(text, /^nodejs_active_handles\{type="\w+"\} \d+$/m, 'the per-type handle gauges stay')
    })
  }

  t.test('promtool would report a gauge with a counter suffix, so the checks above mean something', async (t) => {
    const lint = await run(promtool, ['check', 'metrics'], ROOT, {}, '# HELP x_total A gauge.\n# TYPE x_total gauge\nx_total 1\n')
    t.not(lint.code, 0)
    t.match(`${lint.stdout}${lint.stderr}`, /x_total non-counter metrics should not have "_total" suffix/)
  })
})
