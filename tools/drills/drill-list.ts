/**
 * Every fault drill: setup (a world of its own), steady load, the fault, recovery, the count. Each takes the shared
 * private servers and returns one row of RELIABILITY.md; `short` shortens faults and waits for CI.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { fileURLToPath } from 'node:url'
import { childPids } from '../harness/proc-sampler.js'
import { descendantPidsSync, startProcess, type BenchProcess } from '../harness/processes.js'
import { sleep, waitFor, waitForFront, waitForWorkers } from '../harness/readiness.js'
import { control, SERVER_LOG_CHANNEL, startSandbox } from '../harness/sandbox.js'
import { freePort } from '../harness/free-port.js'
import { QueueName } from '../../src/queue/names.js'
import { linkedCodes, openDrillWorld, settledRows, storedRows, WORLD_CHAT_USERS, type DrillWorld, type Infra } from './drill-world.js'
import { previousRelease, seedWithRelease, type BuiltRelease } from './previous-release.js'
import { startLoad, type Load, type LoadResult } from './load.js'
import type { DrillOutcome } from './outcome.js'
import { formatErrors, lastBacklogStored, longestGapMs, orderBreaks, recoverySeconds, tallyStored, type ErrorCounts } from './tally.js'

/** The steady load's rates (the issue's drills ran at 250 log events per second). */
export const LOAD = { logsPerSecond: 250, bindsPerSecond: 5, pollsPerSecond: 20 }

/** Fresh codes issued per world: more than any drill binds (20/s for at most ~20 s). */
const BIND_CODES = 500

/** How a drill runs. */
export interface DrillOptions {
  short: boolean
  log: (message: string) => void
}

/** One drill. */
export interface Drill {
  name: string
  /** Part of `--short` (the CI subset). */
  short: boolean
  run(infra: Infra, options: DrillOptions): Promise<DrillOutcome>
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Seconds of load before the fault, and after its end. */
const timing = (short: boolean) => ({ beforeMs: 5_000, afterMs: short ? 5_000 : 10_000, recoveryWaitMs: short ? 120_000 : 240_000 })

const newTag = (name: string) => `drill_${name.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`

function clientErrors(result: LoadResult): string {
  const parts = (Object.entries(result.errors) as Array<[string, ErrorCounts]>)
    .map(([route, counts]) => [route, formatErrors(counts)] as const)
    .filter(([, text]) => text !== 'none')
    .map(([route, text]) => `${route} ${text}`)
  return parts.length === 0 ? 'none' : parts.join('; ')
}

/** Runs `fn` on a fresh world with front and worker up, and always closes the world. */
async function inWorld<T>(infra: Infra, name: string, binds: number, fn: (world: DrillWorld) => Promise<T>, env?: Record<string, string>): Promise<T> {
  const world = await openDrillWorld(infra, name.replace(/-/g, '').slice(0, 10), { binds, ...(env === undefined ? {} : { env }) })
  try {
    await world.startPart('worker')
    await world.startPart('front')
    return await fn(world)
  } finally {
    await world.close().catch(() => undefined)
  }
}

function loadOn(world: DrillWorld, tag: string, rates: Partial<typeof LOAD> = {}): Load {
  const r = { ...LOAD, ...rates }
  return startLoad({ api: world.scratch.api, bearer: world.bearer, tag, ...r, bindCodes: world.bindCodes, pollCodes: world.pollCodes })
}

/** Keeps the load running until the API accepts an event again after the fault (at most a minute). */
async function answeringAgain(load: Load, endMs: number): Promise<void> {
  await waitFor('the API accepting again', async () => load.firstAcceptedAfter(endMs) !== null, 60_000, 100).catch(() => undefined)
}

/**
 * The common shape: load for a while, `fault` (which returns when the fault has ended, with its end time), load for a
 * while more, stop, then wait until every accepted event is stored or the recovery wait is over, and count.
 */
async function logDrill(
  world: DrillWorld,
  name: string,
  faultText: string,
  options: DrillOptions,
  fault: (notes: string[]) => Promise<number>,
  expectedFrontDeaths = 0,
): Promise<DrillOutcome> {
  const t = timing(options.short)
  const tag = newTag(name)
  const notes: string[] = []
  const load = loadOn(world, tag)
  await sleep(t.beforeMs)
  options.log(`${name}: fault (${faultText})`)
  const endMs = await fault(notes).catch(async (err: unknown) => {
    await load.stop()
    throw err
  })
  await answeringAgain(load, endMs)
  await sleep(t.afterMs)
  const result = await load.stop()
  options.log(`${name}: load stopped, ${result.accepted.size} events accepted of ${result.sent}; waiting for MySQL`)
  const { rows, tally } = await settledRows(world.scratch, tag, result.accepted, t.recoveryWaitMs)
  const lastBacklog = lastBacklogStored(result.accepted, rows, endMs)
  if (tally.unacknowledged > 0) notes.push(`${tally.unacknowledged} stored events whose request failed client-side`)
  if (result.bindsSent > 0) {
    const linked = await linkedCodes(world.scratch, result.bound)
    notes.push(`binds: ${result.bound.size} bound of ${result.bindsSent}, ${linked.size} linked in MySQL`)
  }
  return {
    name,
    fault: faultText,
    counted: 'log events',
    accepted: tally.accepted,
    stored: tally.stored,
    lost: tally.lost,
    duplicated: tally.duplicated,
    clientErrors: clientErrors(result),
    recoverySeconds: recoverySeconds(endMs, load.firstAcceptedAfter(endMs), lastBacklog),
    problems: world.frontWorkerDeaths > expectedFrontDeaths ? [`front worker crashed ×${world.frontWorkerDeaths - expectedFrontDeaths}`] : [],
    notes,
  }
}

/** The binds drills count binds: accepted = answered `bound`, stored = bound to that account in MySQL. */
async function bindDrill(world: DrillWorld, name: string, faultText: string, options: DrillOptions, fault: () => Promise<number>): Promise<DrillOutcome> {
  const tag = newTag(name)
  const load = loadOn(world, tag, { bindsPerSecond: 20, logsPerSecond: 50 })
  await sleep(3_000)
  options.log(`${name}: fault (${faultText})`)
  const endMs = await fault().catch(async (err: unknown) => {
    await load.stop()
    throw err
  })
  await answeringAgain(load, endMs)
  await sleep(options.short ? 4_000 : 8_000)
  const result = await load.stop()
  let linked = new Set<string>()
  await waitFor('every bound code linked', async () => (linked = await linkedCodes(world.scratch, result.bound)).size >= result.bound.size, 30_000, 500).catch(() => undefined)
  const { tally: logs } = await settledRows(world.scratch, tag, result.accepted, timing(options.short).recoveryWaitMs)
  const notes = [`log events alongside: ${logs.accepted} accepted, ${logs.lost} lost, ${logs.duplicated} duplicated`]
  const firstLogged = load.firstAcceptedAfter(endMs)
  return {
    name,
    fault: faultText,
    counted: 'binds',
    accepted: result.bound.size,
    stored: linked.size,
    lost: result.bound.size - linked.size + logs.lost,
    duplicated: logs.duplicated,
    clientErrors: clientErrors(result),
    recoverySeconds: recoverySeconds(endMs, firstLogged, null),
    // A crashed front worker resets every request it held: losing a dependency must not kill a front.
    problems: world.frontWorkerDeaths > 0 ? [`front worker crashed ×${world.frontWorkerDeaths}`] : [],
    notes,
  }
}

async function restartRedisAfter(infra: Infra, downMs: number): Promise<number> {
  await infra.redis.kill('SIGKILL')
  await sleep(downMs)
  await infra.redis.start()
  return Date.now()
}

const workerSigkill: Drill = {
  name: 'worker-sigkill',
  short: true,
  run: (infra, options) =>
    inWorld(infra, 'worker-sigkill', BIND_CODES, (world) =>
      logDrill(world, 'worker-sigkill', 'worker SIGKILL, restarted 2 s later', options, async () => {
        await world.parts.worker?.kill('SIGKILL')
        await sleep(2_000)
        await world.startPart('worker')
        return Date.now()
      }),
    ),
}

const redisSigkill: Drill = {
  name: 'redis-sigkill',
  short: false,
  run: (infra, options) =>
    inWorld(infra, 'redis-sigkill', BIND_CODES, (world) =>
      logDrill(world, 'redis-sigkill', 'Redis SIGKILL, 3 s down, restarted from its AOF', options, () => restartRedisAfter(infra, 3_000)),
    ),
}

const mariadbStopped: Drill = {
  name: 'mariadb-stopped',
  short: true,
  run: (infra, options) => {
    const downMs = options.short ? 20_000 : 180_000
    return inWorld(infra, 'mariadb-stopped', BIND_CODES, (world) =>
      logDrill(world, 'mariadb-stopped', `MariaDB shut down (SIGTERM) for ${downMs / 1000} s, then started again`, options, async () => {
        await infra.mariadb.kill('SIGTERM')
        await sleep(downMs)
        await infra.mariadb.start()
        return Date.now()
      }),
    )
  },
}

const bindsRedisKilled: Drill = {
  name: 'binds-redis-killed',
  short: false,
  run: (infra, options) =>
    inWorld(infra, 'binds-redis-killed', BIND_CODES, (world) =>
      bindDrill(world, 'binds-redis-killed', 'binds in flight (20/s) while Redis is SIGKILLed, 3 s down', options, () => restartRedisAfter(infra, 3_000)),
    ),
}

const redisBlip: Drill = {
  name: 'redis-blip',
  short: true,
  run: (infra, options) =>
    inWorld(infra, 'redis-blip', BIND_CODES, (world) =>
      bindDrill(world, 'redis-blip', 'Redis blip during binds (SIGKILL, back 1 s later)', options, () => restartRedisAfter(infra, 1_000)),
    ),
}

const frontWorkerSigkill: Drill = {
  name: 'front-worker-sigkill',
  short: false,
  run: (infra, options) =>
    inWorld(infra, 'front-worker-sigkill', BIND_CODES, (world) =>
      logDrill(world, 'front-worker-sigkill', 'one front cluster worker SIGKILL (of 2)', options, async (notes) => {
        const primary = world.parts.front?.pid ?? 0
        const before = await childPids(primary)
        const victim = before[0]
        if (victim === undefined) throw new Error('the front has no cluster workers')
        process.kill(victim, 'SIGKILL')
        const killedAt = Date.now()
        await waitFor('a replacement front worker', async () => {
          const now = await childPids(primary)
          return now.length >= before.length && !now.includes(victim)
        }, 30_000, 50).then(
          () => notes.push(`replacement forked ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`),
          () => notes.push('no replacement within 30 s'),
        )
        return killedAt
      }, 1),
    ),
}

/** 500 entries to a sandbox webhook that answers 429 ×3, 500 ×3, then 404; then `destinations retry server`. */
const deliveryStorm: Drill = {
  name: 'delivery-storm',
  short: false,
  async run(infra, options) {
    const sandbox = await startSandbox()
    try {
      const hook = await control<{ id: string; url: string }>(sandbox, 'POST', 'webhooks', { channel_id: SERVER_LOG_CHANNEL, name: 'drills' })
      // Digests off: this drill counts every entry delivered on its own once the destination is retried (the backlog
      // it builds would otherwise be summarized: docs/delivery.md, "Under volume").
      const env = { DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase, LOG_DESTINATION_SERVER: hook.url, DELIVERY_DIGEST_BACKLOG: '0', DELIVERY_DIGEST_AFTER_MS: '0' }
      return await inWorld(infra, 'delivery-storm', 10, async (world) => {
        const tag = newTag('delivery-storm')
        const webhookStatus = async (status: number) =>
          (await control<{ byRoute: Record<string, number> }>(sandbox, 'GET', 'requests')).byRoute[`POST /webhooks/:id/:token ${status}`] ?? 0
        const failNext = (status: number, count: number) => control(sandbox, 'POST', `webhooks/${hook.id}/fail`, { status, count, retry_after: 0.5 })
        await failNext(429, 3)
        const load = loadOn(world, tag, { bindsPerSecond: 0, pollsPerSecond: 0 })
        await sleep(2_000)
        const result = await load.stop()
        options.log(`delivery-storm: ${result.accepted.size} entries accepted; 429 ×3, 500 ×3, 404 next`)
        await waitFor('three 429s', async () => (await webhookStatus(429)) >= 3, 60_000, 100)
        await failNext(500, 3)
        await waitFor('three 500s', async () => (await webhookStatus(500)) >= 3, 60_000, 100)
        await failNext(404, 1)
        await waitFor('the 404', async () => (await webhookStatus(404)) >= 1, 60_000, 100)
        await waitFor('the destination disabled', async () => {
          const row = await world.scratch.db.selectFrom('log_destinations').select('disabled_at').where('category', '=', 'server').executeTakeFirst()
          return row?.disabled_at != null
        }, 30_000, 200)
        const retry = startProcess({ name: 'destinations retry', script: 'src/cli.js', args: ['destinations', 'retry', 'server'], env: world.scratch.env, exits: true })
        await new Promise<void>((resolve) => retry.proc.once('exit', () => resolve()))
        const retriedAt = Date.now()
        const delivered = async () => {
          const messages = await control<Array<{ webhook_id?: string; embeds: Array<{ description?: string; footer?: { text: string } }> }>>(
            sandbox,
            'GET',
            `messages?webhook_id=${hook.id}`,
          )
          // The description is markdown-escaped (`drill\_delivery\_storm...`): unescape it to get the event id back.
          return messages.flatMap((m) => m.embeds.map((e) => ({ id: (e.description ?? '').replace(/\\(.)/g, '$1'), entry: Number(/#(\d+)/.exec(e.footer?.text ?? '')?.[1] ?? Number.NaN) })))
        }
        let seen: Array<{ id: string; entry: number }> = []
        let allAt: number | null = null
        await waitFor('every entry delivered', async () => {
          seen = await delivered()
          const ids = new Set(seen.map((s) => s.id))
          return [...result.accepted.keys()].every((id) => ids.has(id))
        }, timing(options.short).recoveryWaitMs, 250).then(
          () => (allAt = Date.now()),
          () => undefined,
        )
        await sleep(2_000)
        seen = (await delivered()).filter((s) => s.id.startsWith(`${tag}#`))
        const counts = new Map<string, number>()
        for (const s of seen) counts.set(s.id, (counts.get(s.id) ?? 0) + 1)
        const tally = tallyStored(result.accepted.keys(), counts)
        const breaks = orderBreaks(seen.map((s) => s.entry))
        const posts = await webhookStatus(200).catch(() => 0)
        return {
          name: 'delivery-storm',
          fault: 'webhook answers 429 ×3, 500 ×3, then 404; `destinations retry server`',
          counted: 'delivered entries',
          accepted: tally.accepted,
          stored: tally.stored,
          lost: tally.lost,
          duplicated: tally.duplicated,
          clientErrors: clientErrors(result),
          recoverySeconds: allAt === null ? null : (allAt - retriedAt) / 1000,
          problems: breaks === 0 ? [] : [`${breaks} entries delivered out of order`],
          notes: [`${posts} webhook posts answered 200`, ...(breaks === 0 ? ['delivered in entry order'] : [])],
        }
      }, env)
    } finally {
      await sandbox.close()
    }
  },
}

/** Pid and start time (field 22 of /proc/PID/stat), so a reused pid is not taken for a survivor. */
function identity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // After the command name, state is the first field: start time (field 22) is the 20th.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

/** `npm start` (what an operator runs) under load, SIGTERM to npm, every process gone by the deadline, then a restart. */
const sigtermRestart: Drill = {
  name: 'sigterm-restart',
  short: true,
  async run(infra, options) {
    const t = timing(options.short)
    const world = await openDrillWorld(infra, 'sigterm', { binds: BIND_CODES, env: { SANDBOX: 'on', SANDBOX_PORT: String(await freePort()), LOG_LEVEL: 'warn' } })
    const tag = newTag('sigterm-restart')
    const startServe = async (): Promise<BenchProcess> => {
      const npm = startProcess({ name: 'npm start', script: '', command: { file: 'npm', args: ['start', '--ignore-scripts', '--silent'], cwd: ROOT }, env: world.scratch.env })
      await waitFor('npm start serving', async () => {
        const res = await fetch(`http://127.0.0.1:${world.scratch.port}/readyz`)
        await res.arrayBuffer()
        return res.status === 200
      }, 90_000, 100)
      return npm
    }
    let serve: BenchProcess | undefined
    let load: Load | undefined
    try {
      serve = await startServe()
      load = loadOn(world, tag)
      await sleep(t.beforeMs)
      // Every process of the tree, seen before the signal (cluster workers and parts restarted meanwhile included).
      const tree = new Map<number, string>()
      for (const pid of [serve.pid, ...descendantPidsSync(serve.pid)]) {
        const id = identity(pid)
        if (id !== null) tree.set(pid, id)
      }
      options.log(`sigterm-restart: SIGTERM to npm start (pid ${serve.pid}), ${tree.size} processes in its tree`)
      const signalledAt = Date.now()
      const serveExited = serve.kill('SIGTERM')
      const deadlineMs = 20_000
      const alive = () => [...tree].filter(([pid, id]) => identity(pid) === id).map(([pid]) => pid)
      await waitFor('every process gone', async () => alive().length === 0, deadlineMs, 100).catch(() => undefined)
      const survivors = alive()
      const goneIn = (Date.now() - signalledAt) / 1000
      const notes = [`${tree.size} processes in the tree; ${survivors.length === 0 ? `all gone ${goneIn.toFixed(1)} s after SIGTERM` : `${survivors.length} still running ${deadlineMs / 1000} s after SIGTERM (killed by the drill)`}`]
      for (const pid of survivors) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // gone meanwhile
        }
      }
      if (survivors.includes(serve.pid)) serve.proc.kill('SIGKILL')
      await serveExited
      const restartAt = Date.now()
      serve = await startServe()
      const upAt = Date.now()
      notes.push(`restart answered /readyz ${((upAt - restartAt) / 1000).toFixed(1)} s after start`)
      await sleep(t.afterMs)
      const result = await load.stop()
      const stopped = load
      load = undefined
      const { rows, tally } = await settledRows(world.scratch, tag, result.accepted, t.recoveryWaitMs)
      const lastBacklog = lastBacklogStored(result.accepted, rows, restartAt)
      return {
        name: 'sigterm-restart',
        fault: 'SIGTERM to `npm start` under load, then `npm start` again',
        counted: 'log events',
        accepted: tally.accepted,
        stored: tally.stored,
        lost: tally.lost,
        duplicated: tally.duplicated,
        clientErrors: clientErrors(result),
        recoverySeconds: recoverySeconds(restartAt, stopped.firstAcceptedAfter(restartAt), lastBacklog),
        problems: survivors.length === 0 ? [] : [`${survivors.length} processes survived the stop`],
        notes,
      }
    } finally {
      await load?.stop()
      if (serve !== undefined) {
        // On the old code npm does not pass SIGTERM on: signal the whole tree, then SIGKILL what is left.
        const rest = [serve.pid, ...descendantPidsSync(serve.pid)].map((pid) => [pid, identity(pid)] as const)
        const signal = (sig: NodeJS.Signals) => {
          for (const [pid, id] of rest) {
            try {
              if (id !== null && identity(pid) === id) process.kill(pid, sig)
            } catch {
              // gone meanwhile
            }
          }
        }
        signal('SIGTERM')
        await waitFor('the tree gone', async () => rest.every(([pid, id]) => identity(pid) !== id), 20_000, 100).catch(() => undefined)
        signal('SIGKILL')
        await serve.kill('SIGKILL')
      }
      await world.close().catch(() => undefined)
    }
  },
}

/** Runs `presence-link ARGS` against the world's database and Redis; rejects with its last lines unless it exits 0. */
async function cli(world: DrillWorld, args: string[]): Promise<string[]> {
  const run = startProcess({ name: `presence-link ${args[0] ?? ''}`, script: 'src/cli.js', args, env: world.scratch.env, exits: true })
  const code = await new Promise<number | null>((resolve) => run.proc.once('exit', (c) => resolve(c)))
  if (code !== 0) throw new Error(`presence-link ${args.join(' ')} exited ${code}: ${run.lines.slice(-5).join(' | ')}`)
  return [...run.lines]
}

/** Codes whose Redis copy holds another version than their MySQL row (`{p}:codes`: the version is the last field). */
async function copiesBehind(world: DrillWorld, codes: readonly string[]): Promise<number> {
  if (codes.length === 0) return 0
  const rows = await world.scratch.db.selectFrom('codes').select(['code', sql<string>`CAST(version AS CHAR)`.as('v')]).where('code', 'in', [...codes]).execute()
  const copies = await world.scratch.redis.hmget(world.scratch.ctx.keys.codes, ...rows.map((r) => r.code))
  return rows.filter((r, i) => copies[i]?.split('|').at(-1) !== r.v).length
}

/**
 * Drops every table of the world's database, as a lost data directory leaves it (the database itself stays: the
 * drill's own connections keep it selected, and `restore` wants an empty one).
 */
async function wipeTables(world: DrillWorld): Promise<void> {
  await world.scratch.db.connection().execute(async (c) => {
    const { rows } = await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()`.execute(c)
    await sql`SET FOREIGN_KEY_CHECKS = 0`.execute(c)
    try {
      await sql`DROP TABLE ${sql.join(rows.map((r) => sql.id(r.name)))}`.execute(c)
    } finally {
      await sql`SET FOREIGN_KEY_CHECKS = 1`.execute(c)
    }
  })
}

/**
 * docs/operations.md "Backup and restore" under load: a backup, more load, then MariaDB wiped (the database dropped)
 * with the worker stopped (every table dropped), `restore` of the backup, the worker started again. Promised: only what MySQL stored after
 * the backup began is lost (log events and binds); events accepted meanwhile wait in Redis and are stored after the
 * restore; every Redis copy of a code converges on its restored row. `lost` counts only losses outside that promise.
 */
const backupRestore: Drill = {
  name: 'backup-restore',
  // About 25 s with --short here (5 s of load, the backup, 3 s, the restore, 5 s after).
  short: true,
  run: (infra, options) =>
    inWorld(infra, 'backup-restore', BIND_CODES, async (world) => {
      const t = timing(options.short)
      const tag = newTag('backup-restore')
      const dir = mkdtempSync(join(tmpdir(), 'presence-backup-'))
      const load = loadOn(world, tag)
      try {
        await sleep(t.beforeMs)
        const backupAt = Date.now()
        await cli(world, ['backup', '--out', dir])
        const file = join(dir, readdirSync(dir)[0] ?? '')
        options.log(`backup-restore: backup written (${file}); load goes on, then MariaDB is wiped`)
        await sleep(3_000)
        await world.parts.worker?.stop(20_000)
        const storedBeforeWipe = await storedRows(world.scratch, tag)
        const afterBackup = new Set([...storedBeforeWipe].filter(([, r]) => r.lastMs >= backupAt - 1000).map(([id]) => id))
        const wipedAt = Date.now()
        await wipeTables(world)
        await cli(world, ['restore', file])
        await world.startPart('worker')
        const endMs = Date.now()
        // Every code of the world, watched from the worker's restart: each copy at its restored row's version.
        let behind = -1
        const converged = waitFor('the code copies rewritten from MySQL', async () => (behind = await copiesBehind(world, world.bindCodes)) === 0, 60_000, 100).then(
          () => Date.now(),
          () => null,
        )
        options.log(`backup-restore: restored and the worker restarted ${((endMs - wipedAt) / 1000).toFixed(1)} s after the wipe`)
        await answeringAgain(load, endMs)
        await sleep(t.afterMs)
        const result = await load.stop()
        const expected = [...result.accepted.keys()].filter((id) => !afterBackup.has(id))
        const { rows, tally } = await settledRows(world.scratch, tag, result.accepted, t.recoveryWaitMs, { ids: expected, what: 'every accepted event stored but those the restore loses' })
        const promisedLost = [...afterBackup].filter((id) => !rows.has(id)).length
        const replayed = [...result.accepted].filter(([id, at]) => at >= wipedAt - 3_000 && at <= endMs && rows.has(id)).length
        const linked = await linkedCodes(world.scratch, result.bound)
        const convergedAt = await converged
        return {
          name: 'backup-restore',
          fault: 'backup under load, every table dropped (worker stopped), `presence-link restore`, worker restarted',
          counted: 'log events (losses the docs do not promise)',
          accepted: tally.accepted,
          stored: tally.stored,
          lost: tally.lost - promisedLost,
          duplicated: tally.duplicated,
          clientErrors: clientErrors(result),
          recoverySeconds: recoverySeconds(endMs, load.firstAcceptedAfter(endMs), null),
          problems: convergedAt !== null ? [] : [`${behind} code copies still differ from their restored rows 60 s after the restart`],
          notes: [
            `${promisedLost} events stored after the backup began were lost, as docs/operations.md promises (${afterBackup.size} stored in that window)`,
            `${replayed} events accepted around the wipe waited in Redis and were stored after the restore`,
            `binds: ${result.bound.size} answered bound, ${linked.size} still linked after the restore (the others were bound after the backup)`,
            convergedAt === null ? 'code copies did not converge' : `every code's Redis copy at its restored row's version ${((convergedAt - endMs) / 1000).toFixed(1)} s after the worker restarted`,
          ],
        }
      } finally {
        await load.stop().catch(() => undefined)
        rmSync(dir, { recursive: true, force: true })
      }
    }),
}

/** The release before this one (CHANGELOG.md: 0.1.0 is f2075e2): the upgrade drill starts from it. */
export const PREVIOUS_RELEASE = { version: '0.1.0', commit: 'f2075e2' }

/** The parts a rolling upgrade replaces, in docs/operations.md's order. */
const UPGRADE_ORDER = ['front', 'worker', 'gateway'] as const
type UpgradePart = (typeof UPGRADE_ORDER)[number]

/** `presence-link ARGS` of `release` (this checkout when undefined) with `env`; rejects with its last lines unless it exits 0. */
async function releaseCli(release: BuiltRelease | undefined, env: Record<string, string>, args: string[]): Promise<string[]> {
  const name = `presence-link ${args[0] ?? ''}${release === undefined ? '' : ` (${release.commit})`}`
  const run =
    release === undefined
      ? startProcess({ name, script: 'src/cli.js', args, env, exits: true })
      : startProcess({ name, script: '', command: { file: process.execPath, args: [release.cli, ...args], cwd: release.dir }, env, exits: true })
  const code = await new Promise<number | null>((resolve) => run.proc.once('exit', (c) => resolve(c)))
  if (code !== 0) throw new Error(`${name} ${args.join(' ')} exited ${code}: ${run.lines.slice(-5).join(' | ')}`)
  return [...run.lines]
}

/** The `version` label of `presence_link_build_info` on the metrics port, or `?` when it cannot be read. */
async function buildInfoVersion(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })
    const text = await res.text()
    return /presence_link_build_info\{[^}]*version="([^"]+)"/.exec(text)?.[1] ?? '?'
  } catch {
    return '?'
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1)

/**
 * docs/operations.md "Upgrading" under load: the previous release (built from git, cached by commit) serves a database
 * it migrated itself (front, worker and gateway against the Discord sandbox); this checkout's `presence-link migrate`
 * runs while it serves; then the fronts, the workers and the gateways are restarted on this release one after the
 * other (SIGTERM, then the new part). Counted: accepted log events lost or stored twice, callbacks polls not answered
 * 200 and the longest stretch without a 200, and the version each part reports at the end.
 */
const upgrade: Drill = {
  name: 'upgrade',
  // 43 s here with the build cached; CI's fresh TMPDIR adds the previous release's build (23 s here, npm's cache warm).
  short: true,
  async run(infra, options) {
    const t = timing(options.short)
    const release = await previousRelease(ROOT, PREVIOUS_RELEASE.commit, options.log)
    const newVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
    const notes = [`previous release ${PREVIOUS_RELEASE.version} (${release.commit}) ${release.built ? `built this run, node_modules by ${release.modules}` : 'from the build cache'}`]
    const problems: string[] = []
    const sandbox = await startSandbox()
    const metricsPorts: Record<UpgradePart, number> = { front: await freePort(), worker: await freePort(), gateway: await freePort() }
    const env = {
      DISCORD_TOKEN: 'sandbox-token',
      DISCORD_API: sandbox.apiBase,
      GUILD_WHITELIST: sandbox.defaultGuildId,
      METRICS_PORT: String(metricsPorts.front),
      WORKER_METRICS_PORT: String(metricsPorts.worker),
      GATEWAY_METRICS_PORT: String(metricsPorts.gateway),
    }
    let world: DrillWorld | undefined
    let load: Load | undefined
    const running = new Map<UpgradePart, { proc: BenchProcess; label: string }>()
    // Error lines (pino level 50 or 60) of any part from the migration on: the old release on the new schema shows here.
    let migrated = false
    const errorLines: string[] = []
    // The previous release's parts, once sent SIGTERM: their error lines from then on are that release's shutdown
    // (0.1.0's front closes its queues under requests still in a handler and answers them 503; 0.2.0's answers them
    // first), which this release cannot change. They are reported; this release's lines and the old parts' lines
    // before their stop fail the drill.
    const stopping = new Set<string>()
    const oldShutdownLines: string[] = []
    try {
      const migratedOld = Date.now()
      world = await openDrillWorld(infra, 'upgrade', {
        binds: BIND_CODES,
        env,
        prepare: async (scratch, count) => {
          await releaseCli(release, scratch.env, ['migrate'])
          return seedWithRelease(release, scratch.env, count, WORLD_CHAT_USERS)
        },
      })
      const w = world
      notes.push(`the previous release migrated the empty database in ${seconds(Date.now() - migratedOld)} s (with the world's set-up)`)
      const start = async (name: UpgradePart, which: 'previous' | 'new'): Promise<void> => {
        const label = `${name} ${which === 'previous' ? PREVIOUS_RELEASE.version : newVersion}`
        const startedAt = Date.now()
        const proc =
          which === 'previous'
            ? startProcess({ name: label, script: '', command: { file: process.execPath, args: [release.cli, name], cwd: release.dir }, env: w.scratch.env })
            : startProcess({ name: label, script: 'src/cli.js', args: [name], env: w.scratch.env })
        running.set(name, { proc, label })
        proc.onLine((line) => {
          if (/front worker died/.test(line)) w.frontWorkerDeaths++
          if (!migrated || !/"level":(50|60)/.test(line)) return
          if (stopping.has(label)) oldShutdownLines.push(`${label}: ${line.slice(0, 300)}`)
          else errorLines.push(`${label}: ${line.slice(0, 300)}`)
        })
        if (name === 'front') {
          w.parts.front = proc
          await waitForFront(w.scratch.port, 60_000, 50)
        } else if (name === 'worker') {
          w.parts.worker = proc
          await waitForWorkers(w.scratch.redis, w.scratch.ctx.keys.bullPrefix, [QueueName.Bind, QueueName.Log])
        } else {
          // The gateway writes its whitelist record (with its start time) once it has started.
          await waitFor(`the ${label} gateway started`, async () => {
            const text = await w.scratch.redis.get(w.scratch.ctx.keys.guildsFromEnv)
            const at = text === null ? 0 : Date.parse((JSON.parse(text) as { at: string }).at)
            return at >= startedAt - 1_000
          }, 60_000, 100)
        }
      }
      const versions = async () => Object.fromEntries(await Promise.all(UPGRADE_ORDER.map(async (p) => [p, await buildInfoVersion(metricsPorts[p])] as const))) as Record<UpgradePart, string>
      for (const name of ['worker', 'front', 'gateway'] as const) await start(name, 'previous')
      const before = await versions()
      const tag = newTag('upgrade')
      load = loadOn(world, tag)
      const loadStartedAt = Date.now()
      await sleep(t.beforeMs)
      options.log(`upgrade: ${newVersion}'s presence-link migrate while ${PREVIOUS_RELEASE.version} serves`)
      const migrateAt = Date.now()
      migrated = true
      await releaseCli(undefined, world.scratch.env, ['migrate'])
      const migrateEnd = Date.now()
      notes.push(`migrate (${newVersion}) took ${seconds(migrateEnd - migrateAt)} s under load`)
      await sleep(t.beforeMs)
      const acceptedOnNewSchema = [...load.result.accepted.values()].filter((at) => at >= migrateEnd).length
      const windows: Partial<Record<UpgradePart, { began: number; upAt: number }>> = {}
      for (const name of UPGRADE_ORDER) {
        const old = running.get(name)
        if (old === undefined) throw new Error(`no ${name} running`)
        if (old.proc.proc.exitCode !== null || old.proc.proc.signalCode !== null) problems.push(`${old.label} had exited before its restart`)
        options.log(`upgrade: restarting the ${name} (${old.label}: SIGTERM, then ${newVersion})`)
        const began = Date.now()
        stopping.add(old.label)
        await old.proc.stop(20_000)
        const stoppedAt = Date.now()
        await start(name, 'new')
        const upAt = Date.now()
        windows[name] = { began, upAt }
        notes.push(`${name}: ${PREVIOUS_RELEASE.version} gone ${seconds(stoppedAt - began)} s after SIGTERM, ${newVersion} up ${seconds(upAt - stoppedAt)} s later`)
        if (name !== 'gateway') await sleep(3_000)
      }
      const endMs = Date.now()
      await answeringAgain(load, endMs)
      await sleep(t.afterMs)
      const result = await load.stop()
      const stoppedAt = Date.now()
      const stopped = load
      load = undefined
      const after = await versions()
      const cliVersion = (await releaseCli(undefined, world.scratch.env, ['version'])).join(' ').slice(0, 200)
      options.log(`upgrade: load stopped, ${result.accepted.size} events accepted of ${result.sent}; waiting for MySQL`)
      const { rows, tally } = await settledRows(w.scratch, tag, result.accepted, t.recoveryWaitMs)
      const lastBacklog = lastBacklogStored(result.accepted, rows, endMs)
      // Polls: the whole load, and outside the front's own restart (one front process: its port is closed meanwhile).
      const front = windows.front ?? { began: loadStartedAt, upAt: loadStartedAt }
      const gap = longestGapMs(result.pollOkTimes, loadStartedAt, stoppedAt)
      const gapOutsideFront = Math.max(longestGapMs(result.pollOkTimes, loadStartedAt, front.began), longestGapMs(result.pollOkTimes, front.upAt, stoppedAt))
      const answeredNot200 = Object.entries(result.errors.callbacks).filter(([kind]) => /^\d+$/.test(kind)).reduce((n, [, c]) => n + c, 0)
      const pollFailures = Object.values(result.errors.callbacks).reduce((n, c) => n + c, 0)
      notes.push(
        `polls: ${result.pollOkTimes.length} of ${result.polls} answered 200, ${answeredNot200} answered otherwise, ${pollFailures - answeredNot200} not answered (connection refused or reset); longest stretch without a 200 ${seconds(gap)} s (the front's restart window ${seconds(front.upAt - front.began)} s), ${seconds(gapOutsideFront)} s outside it`,
        `${acceptedOnNewSchema} events accepted by ${PREVIOUS_RELEASE.version}'s front after the migration (stored by its worker on the new schema)`,
        `build_info versions before: front ${before.front}, worker ${before.worker}, gateway ${before.gateway}; after: front ${after.front}, worker ${after.worker}, gateway ${after.gateway}; presence-link version: ${cliVersion}`,
      )
      if (answeredNot200 > 0) problems.push(`${answeredNot200} polls answered with another status than 200`)
      if (gapOutsideFront > 2_000) problems.push(`polls went ${seconds(gapOutsideFront)} s without a 200 outside the front's restart`)
      for (const p of UPGRADE_ORDER) if (after[p] !== newVersion) problems.push(`the ${p} reports version ${after[p]} after the upgrade, not ${newVersion}`)
      if (errorLines.length > 0) {
        problems.push(`${errorLines.length} error lines from the parts after the migration`)
        for (const line of errorLines.slice(0, 5)) options.log(`upgrade: ${line}`)
      }
      if (oldShutdownLines.length > 0) {
        notes.push(`${oldShutdownLines.length} error lines from ${PREVIOUS_RELEASE.version}'s parts after their SIGTERM (that release's shutdown), the first: ${oldShutdownLines[0]!.slice(0, 200)}`)
        for (const line of oldShutdownLines.slice(0, 3)) options.log(`upgrade: during its shutdown: ${line}`)
      }
      if (w.frontWorkerDeaths > 0) problems.push(`front worker crashed ×${w.frontWorkerDeaths}`)
      if (result.bindsSent > 0) {
        const linked = await linkedCodes(w.scratch, result.bound)
        notes.push(`binds: ${result.bound.size} bound of ${result.bindsSent}, ${linked.size} linked in MySQL`)
      }
      if (tally.unacknowledged > 0) notes.push(`${tally.unacknowledged} stored events whose request failed client-side`)
      return {
        name: 'upgrade',
        fault: `rolling upgrade ${PREVIOUS_RELEASE.version} → ${newVersion}: migrate while the old release serves, then fronts, workers, gateways (SIGTERM, start new)`,
        counted: 'log events',
        accepted: tally.accepted,
        stored: tally.stored,
        lost: tally.lost,
        duplicated: tally.duplicated,
        clientErrors: clientErrors(result),
        recoverySeconds: recoverySeconds(endMs, stopped.firstAcceptedAfter(endMs), lastBacklog),
        problems,
        notes,
      }
    } finally {
      await load?.stop().catch(() => undefined)
      const gateway = running.get('gateway')
      await gateway?.proc.stop(20_000).catch(() => undefined)
      await world?.close().catch(() => undefined)
      await sandbox.close()
    }
  },
}

/** Every drill, in run order. */
export const DRILLS: readonly Drill[] = [workerSigkill, redisSigkill, mariadbStopped, bindsRedisKilled, frontWorkerSigkill, deliveryStorm, redisBlip, sigtermRestart, backupRestore, upgrade]

