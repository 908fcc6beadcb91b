/**
 * Runs a scenario of the Roblox module's tests (test/clients/roblox/*.lua) under a real Luau VM: the npm package
 * luau-web, in a Node process of its own (test/helpers/luau-host.mjs, the engine's native side: HTTP, streams, the
 * clock), with the engine stand-ins of test/clients/roblox/engine.lua and harness.lua. A scenario prints one JSON line
 * last, which the TypeScript test asserts on.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * V8 compiles luau-web's WebAssembly with its baseline compiler only: the optimizing tier spends about a second of CPU
 * per process recompiling the VM's interpreter, more than a scenario runs in (measured: a bare scenario 1.2 s of CPU
 * with it, 0.4 s without; 5,000 log events 1.8-2.3 s against 0.7-0.9 s).
 */
const NODE_FLAGS = ['--liftoff-only']

/** Runs test/clients/roblox/`script` with `env` on top of ours (`timeoutMs`, 60 s by default) and resolves with its last line, parsed. */
export function runLuauScenario(script: string, env: Record<string, string>, timeoutMs = 60_000): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...NODE_FLAGS, 'test/helpers/luau-host.mjs', `test/clients/roblox/${script}`],
      { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        if (err !== null) return reject(new Error(`luau ${script} failed: ${err.message}\n${stderr}`))
        const line = stdout.trim().split('\n').at(-1) ?? ''
        try {
          resolve(JSON.parse(line))
        } catch {
          reject(new Error(`luau ${script} printed no JSON: ${stdout}\n${stderr}`))
        }
      },
    )
  })
}
