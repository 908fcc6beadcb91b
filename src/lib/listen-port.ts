/**
 * A port already taken at start: the error a part throws, the one line that explains it, the exit status it leaves
 * with (98, documented in docs/operations.md), and the probe the front runs before its uWS workers listen (uWS sets
 * SO_REUSEPORT, so a second front on a taken port would get no EADDRINUSE and silently take half the traffic).
 */
import { createServer, type Server } from 'node:net'

/** Exit status of a part (and of `serve`) that could not start because a port it needs is taken. */
export const PORT_TAKEN_EXIT = 98

/** Which port: the number, the address it was asked on, and the variable (or flag) that chose it, when known. */
export interface TakenPort {
  port: number
  host: string
  variable?: string
}

/** A port a part needs is already in use. */
export class PortTakenError extends Error {
  readonly taken: TakenPort
  constructor(taken: TakenPort) {
    super(portTakenMessage(taken))
    this.name = 'PortTakenError'
    this.taken = taken
  }
}

/** The one-line explanation (pure): `port 8080 on 127.0.0.1 (PORT) is already in use: ...`. */
export function portTakenMessage({ port, host, variable }: TakenPort): string {
  const what = variable === undefined ? '' : ` (${variable})`
  const fix = variable === undefined ? 'choose another port' : `set ${variable} to a free port`
  return `port ${port} on ${host}${what} is already in use: another presence-link, or another program, listens there; stop it, or ${fix}`
}

/** True for Node's "address in use" error. */
export function isAddressInUse(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'EADDRINUSE'
}

/** Listens `server` on `port` at `host`; a taken port rejects with a PortTakenError naming `variable`. */
export async function listenOrExplain(server: Server, port: number, host: string, variable?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(isAddressInUse(err) ? new PortTakenError({ port, host, ...(variable === undefined ? {} : { variable }) }) : err)
    server.once('error', failed)
    server.listen(port, host, () => {
      server.off('error', failed)
      resolve()
    })
  })
}

/**
 * Rejects with a PortTakenError when `port` at `host` is taken, by listening there briefly with node:net (which sets
 * no SO_REUSEPORT, so it fails against a uWS socket too); port 0 is never taken.
 */
export async function probePort(port: number, host: string, variable?: string): Promise<void> {
  if (port === 0) return
  const probe = createServer()
  await listenOrExplain(probe, port, host, variable)
  await new Promise<void>((resolve) => probe.close(() => resolve()))
}
