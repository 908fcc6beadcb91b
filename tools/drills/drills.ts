/**
 * `npm run drills`: fault drills against the real service from dist/. Starts a private Redis (AOF on) and MariaDB on
 * free ports with their data in a temporary directory, runs each drill (tools/drills/drill-list.ts) on a world of its
 * own under steady load, writes RELIABILITY.md (or `--out FILE`) and exits 1 when any drill lost or duplicated an
 * accepted event, left a process running, or never recovered. Everything it started is killed on the way out, on
 * Ctrl-C and on a crash. Options: `--only NAME[,NAME]`, `--short` (the CI subset, shorter faults), `--out FILE`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { createBenchLog, killAllSync, runMain, stopAll } from '../harness/processes.js'
import { killServersSync, privateMariadb, privateRedis } from '../harness/private-infra.js'
import { createScratch } from '../harness/scratch.js'
import { DRILLS, LOAD } from './drill-list.js'
import type { Infra } from './drill-world.js'
import { drillPassed, type DrillOutcome } from './outcome.js'
import { renderReliability, renderRow } from './render-reliability.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const log = createBenchLog('drills')

const { values } = parseArgs({
  options: { only: { type: 'string' }, short: { type: 'boolean', default: false }, out: { type: 'string' } },
  allowPositionals: false,
})
const short = values.short === true
const only = values.only?.split(',').map((s) => s.trim()).filter((s) => s !== '')
const unknown = (only ?? []).filter((name) => !DRILLS.some((d) => d.name === name))
if (unknown.length > 0) {
  process.stderr.write(`unknown drill ${unknown.join(', ')}; drills: ${DRILLS.map((d) => d.name).join(', ')}\n`)
  process.exit(2)
}
const selected = DRILLS.filter((d) => (only === undefined ? !short || d.short : only.includes(d.name)))
const out = resolve(values.out ?? join(ROOT, 'RELIABILITY.md'))
const command = ['npm run drills', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ')

const tmp = mkdtempSync(join(os.tmpdir(), 'presence-drills-'))
// Whatever ends this process (a drill's crash, process.exit, a signal below), nothing it started outlives it.
process.once('exit', () => {
  killAllSync()
  killServersSync()
  rmSync(tmp, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping everything the drills started`)
    process.exit(130)
  })
}

async function machine(infra: Infra): Promise<{ redis: string; mariadb: string }> {
  const scratch = await createScratch({ stem: 'drillsver', poolSize: 1, databaseUrl: infra.mariadb.url, redisUrl: infra.redis.url })
  try {
    const info = await scratch.redis.info('server')
    const version = await sql<{ v: string }>`SELECT VERSION() AS v`.execute(scratch.db)
    return { redis: /redis_version:(\S+)/.exec(info)?.[1] ?? '?', mariadb: version.rows[0]?.v ?? '?' }
  } finally {
    await scratch.remove()
  }
}

async function main(): Promise<number> {
  const startedAt = new Date()
  const infra: Infra = { redis: await privateRedis(join(tmp, 'redis')), mariadb: await privateMariadb(join(tmp, 'mariadb')) }
  await Promise.all([infra.redis.start(), infra.mariadb.start()])
  log(`private Redis on ${infra.redis.port}, MariaDB on ${infra.mariadb.port} (data in ${tmp})`)
  const versions = await machine(infra)
  const outcomes: DrillOutcome[] = []
  for (const drill of selected) {
    log(`${drill.name}: starting`)
    const began = Date.now()
    let outcome: DrillOutcome
    try {
      outcome = await drill.run(infra, { short, log })
    } catch (err) {
      outcome = {
        name: drill.name,
        fault: '-',
        counted: '-',
        accepted: 0,
        stored: 0,
        lost: 0,
        duplicated: 0,
        clientErrors: '-',
        recoverySeconds: null,
        problems: [],
        notes: [],
        error: (err as Error).message.split('\n')[0] ?? 'unknown',
      }
      process.stderr.write(`${drill.name} failed: ${(err as Error).stack ?? String(err)}\n`)
    }
    // A drill that failed midway may have left a server down: the next one starts from whole servers.
    for (const server of [infra.redis, infra.mariadb]) if (server.pid() === 0) await server.start()
    await stopAll()
    outcomes.push(outcome)
    log(`${drill.name}: ${drillPassed(outcome) ? 'pass' : 'FAIL'} in ${Math.round((Date.now() - began) / 1000)} s`)
    log(renderRow(outcome))
  }
  const cores = os.cpus().length
  const report = renderReliability({
    startedAt,
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    command,
    machine: { cores, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, os: `${os.type()} ${os.release()}`, ...versions },
    load: LOAD,
    outcomes,
  })
  await writeFile(out, report)
  log(`wrote ${out}`)
  const failed = outcomes.filter((o) => !drillPassed(o))
  if (failed.length > 0) log(`failed: ${failed.map((o) => o.name).join(', ')}`)
  return failed.length === 0 ? 0 : 1
}

runMain('drills', main)
