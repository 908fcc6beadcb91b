/**
 * One drill's world: a scratch database and Redis prefix on the private servers, an API key, fresh codes to bind,
 * and the service's parts (front with FRONT_WORKERS=2 and worker) as child processes that a drill can kill one by
 * one; plus the MySQL counts a drill ends with.
 */
import { sql } from 'kysely'
import { createCodeCache } from '../../src/redis/code-cache.js'
import { buildApiKeyService, buildCodeService } from '../../src/runtime/services.js'
import { startProcess, type BenchProcess } from '../harness/processes.js'
import { QueueName } from '../../src/queue/names.js'
import { sleep, waitFor, waitForFront, waitForWorkers } from '../harness/readiness.js'
import { createScratch, type Scratch } from '../harness/scratch.js'
import type { PrivateServer } from '../harness/private-infra.js'
import { issueFresh } from '../harness/issue-fresh.js'
import { tallyStored, type StoreTally } from './tally.js'

/** The private servers every drill runs on. */
export interface Infra {
  redis: PrivateServer
  mariadb: PrivateServer
}

/** A drill's running world. */
export interface DrillWorld {
  infra: Infra
  scratch: Scratch
  bearer: string
  /** Unbound codes for the load's binds. */
  bindCodes: string[]
  /** Codes for the callbacks polls, joined with `&`. */
  pollCodes: string
  /** The parts as started (replaced in place when a drill restarts one). */
  parts: { front?: BenchProcess; worker?: BenchProcess }
  /** Front output lines saying a cluster worker died, over every front started in this world. */
  frontWorkerDeaths: number
  /** Starts (or restarts) a part and waits until it is up. */
  startPart(name: 'front' | 'worker'): Promise<BenchProcess>
  /** Stops every part and removes the scratch database and keys. */
  close(): Promise<void>
}

/** Per accepted-event id (its description), the rows stored and the latest row's `created_at` (epoch ms). */
export type StoredRows = Map<string, { count: number; lastMs: number }>

/** The world's API key and `count` codes, made through this checkout's services on its migrated schema. */
async function prepareWorld(scratch: Scratch, count: number): Promise<{ key: string; codes: string[] }> {
  const key = await buildApiKeyService(scratch.db, scratch.redis, scratch.ctx.keys).create('drills')
  if (!key.ok) throw new Error('could not create the drills API key')
  const codes = buildCodeService(scratch.db, createCodeCache(scratch.redis, scratch.ctx.keys))
  return { key: key.key, codes: await issueFresh(codes, count, WORLD_CHAT_USERS) }
}

/** The first chat user id of a world's codes. */
export const WORLD_CHAT_USERS = 700_000_000_000_000_000n

/** Builds a world named `stem...`; `env` is added to the parts' environment. */
export async function openDrillWorld(
  infra: Infra,
  stem: string,
  options: {
    binds: number
    env?: Record<string, string>
    /**
     * Gives the empty database its schema and makes the world's API key and `count` codes, in place of this checkout's
     * migrations and services (the upgrade drill: the previous release's, whose schema this checkout cannot write).
     */
    prepare?: (scratch: Scratch, count: number) => Promise<{ key: string; codes: string[] }>
  },
): Promise<DrillWorld> {
  const scratch = await createScratch({
    stem,
    poolSize: 4,
    databaseUrl: infra.mariadb.url,
    redisUrl: infra.redis.url,
    // 127.0.0.1:9 refuses at once: the binds carry the platform user id, so nothing needs the Roblox API.
    env: { FRONT_WORKERS: '2', ROBLOX_USERS_API: 'http://127.0.0.1:9', ...options.env },
    migrate: options.prepare === undefined,
  })
  try {
    const { key, codes: issued } = await (options.prepare ?? prepareWorld)(scratch, options.binds + 3)
    const world: DrillWorld = {
      infra,
      scratch,
      bearer: `Bearer ${key}`,
      bindCodes: issued.slice(3),
      pollCodes: issued.slice(0, 3).join('&'),
      parts: {},
      frontWorkerDeaths: 0,
      async startPart(name) {
        const part = startProcess({ name, script: 'src/cli.js', args: [name], env: scratch.env })
        if (name === 'front') {
          part.onLine((line) => {
            if (/front worker died/.test(line)) world.frontWorkerDeaths++
          })
          world.parts.front = part
          await waitForFront(scratch.port, 60_000, 50)
        } else {
          world.parts.worker = part
          await waitForWorkers(scratch.redis, scratch.ctx.keys.bullPrefix, [QueueName.Bind, QueueName.Log])
        }
        return part
      },
      async close() {
        await Promise.all(Object.values(world.parts).map((p) => p?.stop(20_000)))
        await scratch.remove()
      },
    }
    return world
  } catch (err) {
    await scratch.remove()
    throw err
  }
}

/**
 * The rows of the drill's tag once MySQL has settled: waits (up to `waitMs`) until every id of `expected` (the accepted
 * ones by default) has a row, then 2 s more for stragglers (a job retried after its first attempt stored the row shows
 * up now as a duplicate), and tallies the accepted events against what is stored.
 */
export async function settledRows(
  scratch: Scratch,
  tag: string,
  accepted: ReadonlyMap<string, number>,
  waitMs: number,
  expected: { ids: readonly string[]; what: string } = { ids: [...accepted.keys()], what: 'every accepted event stored' },
): Promise<{ rows: StoredRows; tally: StoreTally }> {
  await waitFor(expected.what, async () => {
    const rows = await storedRows(scratch, tag)
    return expected.ids.every((id) => rows.has(id))
  }, waitMs, 1000).catch(() => undefined)
  await sleep(2000)
  const rows = await storedRows(scratch, tag)
  return { rows, tally: tallyStored(accepted.keys(), new Map([...rows].map(([id, r]) => [id, r.count]))) }
}

/** The rows stored for the drill's tag, grouped by description (the event id). */
export async function storedRows(scratch: Scratch, tag: string): Promise<StoredRows> {
  const rows = await scratch.db
    .selectFrom('log_entries')
    .select(['description', sql<number>`COUNT(*)`.as('n'), sql<Date>`MAX(created_at)`.as('last')])
    .where('event_type', '=', tag)
    .groupBy('description')
    .execute()
  return new Map(rows.map((r) => [r.description, { count: Number(r.n), lastMs: new Date(r.last).getTime() }]))
}

/** Of `bound` (code → platform user id), the codes MySQL holds as bound to that user. */
export async function linkedCodes(scratch: Scratch, bound: ReadonlyMap<string, number>): Promise<Set<string>> {
  if (bound.size === 0) return new Set()
  const rows = await scratch.db.selectFrom('codes').select(['code', 'platform_user_id']).where('code', 'in', [...bound.keys()]).execute()
  return new Set(rows.filter((r) => r.platform_user_id === String(bound.get(r.code))).map((r) => r.code))
}
