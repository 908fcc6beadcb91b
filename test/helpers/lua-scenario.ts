/**
 * Runs a scenario of the Roblox module's tests (test/clients/roblox/*.lua) under Debian's lua5.1, with the module and
 * the test harness on LUA_PATH; a scenario prints one JSON line last, which the TypeScript test asserts on.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs test/clients/roblox/`script` with `env` on top of ours (`timeoutMs`, 60 s by default) and resolves with its last line, parsed. */
export function runLuaScenario(script: string, env: Record<string, string>, timeoutMs = 60_000): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      'lua5.1',
      [`test/clients/roblox/${script}`],
      { cwd: ROOT, timeout: timeoutMs, env: { ...process.env, LUA_PATH: 'test/clients/roblox/?.lua;clients/roblox/?.lua;;', ...env } },
      (err, stdout, stderr) => {
        if (err !== null) return reject(new Error(`lua5.1 ${script} failed: ${err.message}\n${stderr}`))
        const line = stdout.trim().split('\n').at(-1) ?? ''
        try {
          resolve(JSON.parse(line))
        } catch {
          reject(new Error(`lua5.1 ${script} printed no JSON: ${stdout}\n${stderr}`))
        }
      },
    )
  })
}
