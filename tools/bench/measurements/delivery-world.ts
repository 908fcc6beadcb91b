/**
 * The world of a delivery benchmark: a scratch database and Redis prefix whose service talks to the sandbox (bot token
 * and API base set, plus the caller's LOG_DESTINATION_* and settings), an API key, and the front (FRONT_WORKERS=1) and
 * one worker (`worker log delivery`) as child processes, up and answering. `close()` stops them and removes the world.
 */
import os from 'node:os'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { waitForFront } from '../../harness/readiness.js'
import type { Sandbox } from '../../harness/sandbox.js'
import { createScratch, type Scratch } from '../../harness/scratch.js'
import { buildApiKeyService } from '../../../src/runtime/services.js'

/** An open delivery world. */
export interface DeliveryWorld {
  world: Scratch
  /** `Bearer <key>` for the log endpoint. */
  bearer: string
  /** Stops the children, then drops the database and the prefix. */
  close(): Promise<void>
}

/** Opens a world named from `stem` with the service environment `env` on top of the sandbox's; logs one line when up. */
export async function openDeliveryWorld(sandbox: Sandbox, stem: string, env: Record<string, string>, log: (message: string) => void): Promise<DeliveryWorld> {
  const children: BenchProcess[] = []
  let scratch: Scratch | undefined
  const close = async (): Promise<void> => {
    await Promise.all(children.map((c) => c.stop()))
    await scratch?.remove()
  }
  try {
    scratch = await createScratch({ stem, poolSize: 4, env: { DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase, ...env } })
    const world = scratch
    const key = await buildApiKeyService(world.db, world.redis, world.ctx.keys).create('bench')
    if (!key.ok) throw new Error('no API key')
    children.push(startProcess({ name: 'worker', script: 'src/cli.js', args: ['worker', 'log', 'delivery'], env: world.env, echoStderr: true }))
    children.push(startProcess({ name: 'front', script: 'src/cli.js', args: ['front'], env: world.env, echoStderr: true }))
    await waitForFront(world.port, 120_000, 50)
    log(`front and worker up; database pl_${world.name}; ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}; node ${process.version}`)
    return { world, bearer: `Bearer ${key.key}`, close }
  } catch (err) {
    await close()
    throw err
  }
}
