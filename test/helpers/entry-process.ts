/** Runs a real entry point (front, worker, gateway) as a child process with tap's TypeScript loader, for ops tests. */
import { spawn, type ChildProcess } from 'node:child_process'

/** A running entry point. */
export interface EntryProcess {
  child: ChildProcess
  /** Its `/metrics` URL (the port it logged in `metrics listening`). */
  metrics: string
  /** Stops it with SIGTERM and waits for its exit. */
  stop(): Promise<void>
}

/**
 * Starts `entry` (a .ts file) with `env` on top of ours and LOG_LEVEL info, and resolves once it logs `ready` (its
 * message field; 150 s at most: a busy machine loads the TypeScript source slowly). The metrics port comes from its
 * `metrics listening` line for `processName`.
 */
export async function startEntryProcess(entry: string, env: Record<string, string>, processName: string, ready: string): Promise<EntryProcess> {
  const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'))
  const child = spawn(process.execPath, [...loader, entry], {
    env: { ...process.env, HOST: '127.0.0.1', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let metricsPort = 0
      let buffered = ''
      const timer = setTimeout(() => reject(new Error(`${entry} did not log "${ready}" within 150 s: ${stderr}`)), 150_000)
      child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}: ${stderr}`)))
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString()
        let nl: number
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl)
          buffered = buffered.slice(nl + 1)
          let logged: { msg?: string; port?: number; process?: string }
          try {
            logged = JSON.parse(line)
          } catch {
            continue
          }
          if (logged.msg === 'metrics listening' && logged.process === processName) metricsPort = logged.port ?? 0
          if (logged.msg === ready && metricsPort > 0) {
            clearTimeout(timer)
            resolve(metricsPort)
          }
        }
      })
    })
    return { child, metrics: `http://127.0.0.1:${port}/metrics`, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
