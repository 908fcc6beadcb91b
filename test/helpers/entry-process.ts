/** Runs a real entry point (front, worker, gateway) as a child process with tap's TypeScript loader, for ops tests. */
import type { ChildProcess } from 'node:child_process'
import { startPart } from './parts.js'

/** A running entry point. */
export interface EntryProcess {
  child: ChildProcess
  /** Its `/metrics` URL (the port it logged in `metrics listening`). */
  metrics: string
  /** Stops it with SIGTERM and waits for its exit. */
  stop(): Promise<void>
}

// The caller stops it (stop(), usually in its own teardown, or here when it fails to start), not a test's teardown.
const CALLER_STOPS = { teardown: () => undefined }

/**
 * Starts `entry` (a .ts file) with `env` on top of ours and LOG_LEVEL info, and resolves once it logs `ready` (its
 * message field; 150 s at most: a busy machine loads the TypeScript source slowly). The metrics port comes from its
 * `metrics listening` line for `processName`.
 */
export async function startEntryProcess(entry: string, env: Record<string, string>, processName: string, ready: string): Promise<EntryProcess> {
  const part = startPart(CALLER_STOPS, entry, { HOST: '127.0.0.1', ...env, LOG_LEVEL: 'info' })
  const stop = async () => {
    await part.stop()
  }
  try {
    const until = Date.now() + 150_000
    const listening = await part.waitFor((e) => e.msg === 'metrics listening' && e.process === processName, 150_000, `${entry}'s ${processName} metrics listening`)
    await part.waitFor((e) => e.msg === ready, Math.max(until - Date.now(), 1), `${entry}'s "${ready}"`)
    return { child: part.child, metrics: `http://127.0.0.1:${Number(listening.port)}/metrics`, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
