/** The gateway measurements' world: a sandbox in this process (no 429s) and a scratch database and prefix pointed at it. */
import { control, startSandbox, type Sandbox } from '../../harness/sandbox.js'
import { createScratch, type Scratch } from '../../harness/scratch.js'

/** A sandbox and scratch world; `remove` closes and drops both. */
export interface GatewayWorld {
  scratch: Scratch
  sandbox: Sandbox
  remove(): Promise<void>
}

/** Starts the sandbox and makes the scratch world; child processes log at info so the gateway's resync line shows. */
export async function createGatewayWorld(): Promise<GatewayWorld> {
  const sandbox = await startSandbox(0)
  let scratch: Scratch
  try {
    scratch = await createScratch({
      stem: 'gwbench',
      poolSize: 2,
      env: { DISCORD_TOKEN: 'sandbox-token', DISCORD_API: sandbox.apiBase, ROBLOX_USERS_API: sandbox.robloxBase, LOG_LEVEL: 'info' },
    })
  } catch (err) {
    await sandbox.close()
    throw err
  }
  return {
    scratch,
    sandbox,
    async remove() {
      await sandbox.close()
      await scratch.remove()
    },
  }
}

/** POSTs to the world's sandbox control API. */
export function post(world: GatewayWorld, path: string, body: unknown): Promise<unknown> {
  return control(world.sandbox, 'POST', path, body)
}
