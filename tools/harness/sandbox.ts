/** The Discord sandbox in the benchmark process, and calls to its control API. */
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js'
import { DefaultIds } from '../../src/sandbox/world.js'

/** A running sandbox (see src/sandbox/create-sandbox.ts). */
export type { Sandbox }

/** The sandbox's default server-log channel. */
export const SERVER_LOG_CHANNEL = DefaultIds.serverLog

/** Starts a sandbox on a free port; `rateLimitPerSecond` 0 never answers 429, undefined keeps Discord's documented limits (docs/sandbox.md). */
export function startSandbox(rateLimitPerSecond?: number): Promise<Sandbox> {
  return createSandbox(rateLimitPerSecond === undefined ? { port: 0 } : { port: 0, rateLimitPerSecond })
}

/** Calls `METHOD /control/<path>` with a JSON body and returns the JSON answer; throws on a non-2xx status. */
export async function control<T = unknown>(sandbox: Sandbox, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sandbox.url}/control/${path}`, {
    method,
    // The control API refuses anything but JSON on non-GET requests, even without a body.
    ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' } }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}
