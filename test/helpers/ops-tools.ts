/** Finding the operations tools the ops tests run (promtool, docker-compose), and running them. */
import { execFile } from 'node:child_process'
import { access, constants } from 'node:fs/promises'
import { delimiter, join } from 'node:path'

/** Absolute path of `name` on PATH, or undefined. */
export async function which(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    const file = join(dir, name)
    try {
      await access(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}

/** True in CI (`CI=true`), where a missing tool is a failure, not a skip. */
export const inCi = process.env.CI === 'true'

/** Why a test that needs `tool` is skipped, or false when it must run (the tool exists, or this is CI). */
export async function skipUnlessTool(tool: string, debianPackage: string): Promise<string | false> {
  if ((await which(tool)) !== undefined || inCi) return false
  return `${tool} is not installed (apt-get install ${debianPackage}); it runs in CI`
}

/**
 * Runs a command (with `env` on top of ours, and `input` on its stdin); resolves with its exit code and output (never
 * rejects for a non-zero exit).
 */
export function run(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 127
      resolve({ code, stdout, stderr: err !== null && stderr === '' ? err.message : stderr })
    })
    // A command that exits without reading all of its input closes the pipe; that is its answer, not ours to report.
    child.stdin?.on('error', () => {})
    child.stdin?.end(input)
  })
}
