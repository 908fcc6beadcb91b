/** A Redis client pointed at a closed port: every command fails at once, as a command's write-through does in an outage. */
import type { Redis } from 'ioredis'
import { createRedis } from '../../src/redis/connection.js'
import { freePort } from './scratch.js'
import type { Teardown } from './stack.js'

/** Creates the client (fail-fast `request` role) and registers its disconnect on `t`. */
export async function unreachableRedis(t: Teardown): Promise<Redis> {
  const broken = createRedis(`redis://127.0.0.1:${await freePort()}`, 'request', 'unreachable')
  broken.on('error', () => {})
  t.teardown(() => broken.disconnect())
  return broken
}
