/**
 * Throwaway environments for tests and benchmarks: a free port, and removal of a scratch database (`pl_<name>`)
 * with every Redis key under the prefix `<name>:`.
 */
import { createServer, type AddressInfo } from 'node:net'
import type { Redis } from 'ioredis'
import { sql, type Kysely } from 'kysely'

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Drops the database `pl_<name>` and unlinks every Redis key that starts with `<name>:`. */
export async function dropScratch(db: Kysely<any>, redis: Redis, name: string): Promise<void> {
  await sql`DROP DATABASE IF EXISTS ${sql.id(`pl_${name}`)}`.execute(db)
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}:*`, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) await redis.unlink(...keys)
  } while (cursor !== '0')
}
