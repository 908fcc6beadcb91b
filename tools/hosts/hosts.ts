/**
 * `npm run hosts`: the service across test hosts. Builds network namespaces joined by veth pairs (tools/hosts/
 * topology.ts), runs Redis on `data-a` and a MariaDB Galera node on each of `data-a`, `data-b`, `data-c`, the sandbox on `sandbox`, one gateway per shard, a worker, two
 * fronts and HAProxy (haproxy/haproxy.cfg) each on its own host from the built dist/, then runs the scenarios
 * (tools/hosts/scenario-list.ts) and writes HOSTS.md (or `--out FILE`). Exits 1 when a scenario fails, 0 with a
 * clear line when this machine cannot make namespaces (not root, no iproute2). Everything is torn down on the way
 * out, on Ctrl-C and after a crash. Options: `--only NAME[,NAME]`, `--skip NAME[,NAME]`, `--out FILE`, `--hold` (deploy, print where
 * everything is, run no scenario and keep it all up until Ctrl-C).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createBenchLog, killAllSync, runMain } from '../harness/processes.js'
import { killServersSync } from '../harness/private-infra.js'
import { closeClients } from './clients.js'
import { deploy } from './deployment.js'
import { createHosts, hostsUnavailable, removeHostsSync } from './netns.js'
import { renderHosts } from './render-hosts.js'
import { scenarioPassed, type ScenarioOutcome } from './scenario.js'
import { SCENARIOS } from './scenario-list.js'
import { HOSTS } from './topology.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const log = createBenchLog('hosts')

const { values } = parseArgs({ options: { only: { type: 'string' }, skip: { type: 'string' }, out: { type: 'string' }, hold: { type: 'boolean', default: false } }, allowPositionals: false })
const namesOf = (list: string | undefined) => list?.split(',').map((s) => s.trim()).filter((s) => s !== '')
const only = namesOf(values.only)
const skip = namesOf(values.skip) ?? []
const unknown = [...(only ?? []), ...skip].filter((name) => !SCENARIOS.some((s) => s.name === name))
if (unknown.length > 0) {
  process.stderr.write(`unknown scenario ${unknown.join(', ')}; scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}\n`)
  process.exit(2)
}
const selected = SCENARIOS.filter((s) => (only === undefined || only.includes(s.name)) && !skip.includes(s.name))
const out = resolve(values.out ?? join(ROOT, 'HOSTS.md'))
const command = ['npm run hosts', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ')

const tmp = mkdtempSync(join(os.tmpdir(), 'presence-hosts-'))
process.once('exit', () => {
  killAllSync()
  killServersSync()
  removeHostsSync()
  rmSync(tmp, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    log(`${signal}: tearing the hosts down`)
    process.exit(130)
  })
}

async function main(): Promise<number> {
  const why = hostsUnavailable()
  if (why !== null) {
    log(`skipped: ${why}`)
    return 0
  }
  const startedAt = new Date()
  createHosts()
  log(`hosts made: ${HOSTS.map((h) => h.name).join(', ')}`)
  const dep = await deploy(tmp, log)
  if (values.hold === true) {
    log(`holding: API ${dep.api} (key: ${dep.bearer}), sandbox ${dep.control}, balancer stats http://${dep.api.split('/')[2]?.split(':')[0]}:8404/stats`)
    log('each host is a namespace: ip netns exec plh-front-a ... ; Ctrl-C tears everything down')
    await new Promise<never>(() => undefined)
  }
  const outcomes: ScenarioOutcome[] = []
  try {
    for (const scenario of selected) {
      log(`${scenario.name}: starting`)
      const began = Date.now()
      let outcome: ScenarioOutcome
      try {
        outcome = await scenario.run(dep, log)
      } catch (err) {
        process.stderr.write(`${scenario.name} failed: ${(err as Error).stack ?? String(err)}\n`)
        outcome = { name: scenario.name, title: scenario.title, figures: [], problems: [], error: (err as Error).message.split('\n')[0] ?? 'unknown' }
      }
      outcomes.push(outcome)
      log(`${scenario.name}: ${scenarioPassed(outcome) ? 'pass' : 'FAIL'} in ${Math.round((Date.now() - began) / 1000)} s`)
      for (const f of outcome.figures) log(`  ${f.label}: ${f.value}`)
      for (const p of outcome.problems) log(`  problem: ${p}`)
      if (outcome.error !== undefined) log(`  error: ${outcome.error}`)
    }
  } finally {
    closeClients()
    await dep.close()
  }
  const report = renderHosts({
    startedAt,
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    command,
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, os: `${os.type()} ${os.release()}` },
    outcomes,
  })
  await writeFile(out, report)
  log(`wrote ${out}`)
  const failed = outcomes.filter((o) => !scenarioPassed(o))
  if (failed.length > 0) log(`failed: ${failed.map((o) => o.name).join(', ')}`)
  return failed.length === 0 ? 0 : 1
}

runMain('hosts', main)
