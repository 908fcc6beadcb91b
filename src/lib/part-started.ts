/**
 * The messages a part sends `serve` over the IPC channel `serve` gives it (docs/operations.md, "Processes"):
 * - started: "started, and every dependency answers" (the front: its workers listen; serve checks its /readyz).
 *   `serve` says the service is up only once each announcing part has sent it.
 * - waiting: why the part cannot start or serve yet (`mysql: Access denied for user ...`), once per change; '' when
 *   nothing is missing any more. `serve` names it when a part is late.
 * - failed: the reason a start failed, sent just before the part exits; `serve` puts it on its restart line.
 * - port taken: a port the part needs is in use, sent just before it exits with status 98 (PORT_TAKEN_EXIT); `serve`
 *   stops with that line when it happens at a part's first start.
 * A node:cluster worker of the front sends "waiting" to its primary, which passes it on.
 */
import cluster from 'node:cluster'
import type { TakenPort } from './listen-port.js'

/**
 * Exit status of a part whose configuration is refused and will be at every restart (EX_CONFIG, like an invalid
 * environment): the gateway when Discord refuses its token or intents. `serve` stops with it at a first start.
 */
export const CONFIG_REFUSED_EXIT = 78

const PART_STARTED = 'presence-link:part-started'
const PART_WAITING = 'presence-link:part-waiting'
const PART_FAILED = 'presence-link:part-failed'
const PORT_TAKEN = 'presence-link:port-taken'

/** A message from a part, as `serve` reads it. */
export type PartMessage =
  | { kind: 'started' }
  | { kind: 'waiting'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'port-taken'; taken: TakenPort }

/** A message can be lost if the process exits before it is written: senders that exit wait this long at most. */
const SEND_WAIT_MS = 1000

function send(message: object): Promise<void> {
  if (!process.connected || process.send === undefined) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, SEND_WAIT_MS)
    timer.unref()
    process.send!(message, undefined, {}, () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

/** Tells `serve` this part has started; does nothing in a part run on its own (no IPC channel) or in a cluster worker. */
export function announceStarted(): void {
  if (cluster.isPrimary) void send({ type: PART_STARTED })
}

/** Tells `serve` (a front worker: its primary) why the part waits, or '' once it no longer does. */
export function reportWaiting(reason: string): void {
  void send({ type: PART_WAITING, reason })
}

/** Tells `serve` why the start failed; resolves once written (call before exiting). */
export function reportStartFailed(reason: string): Promise<void> {
  return cluster.isPrimary ? send({ type: PART_FAILED, reason }) : Promise.resolve()
}

/** Tells `serve` which port is taken; resolves once written (call before exiting with PORT_TAKEN_EXIT). */
export function reportPortTaken(taken: TakenPort): Promise<void> {
  return cluster.isPrimary ? send({ type: PORT_TAKEN, taken }) : Promise.resolve()
}

/** Reads a message from a child's IPC channel (pure); undefined for anything else. */
export function readPartMessage(message: unknown): PartMessage | undefined {
  const m = message as { type?: unknown; reason?: unknown; taken?: Partial<TakenPort> } | null
  if (m === null || typeof m !== 'object') return undefined
  if (m.type === PART_STARTED) return { kind: 'started' }
  if ((m.type === PART_WAITING || m.type === PART_FAILED) && typeof m.reason === 'string') return { kind: m.type === PART_WAITING ? 'waiting' : 'failed', reason: m.reason }
  if (m.type === PORT_TAKEN && typeof m.taken?.port === 'number' && typeof m.taken.host === 'string') {
    const { port, host, variable } = m.taken
    return { kind: 'port-taken', taken: { port, host, ...(typeof variable === 'string' ? { variable } : {}) } }
  }
  return undefined
}

/** Is `message` (from a child's IPC channel) a part's start announcement? */
export function isStartAnnouncement(message: unknown): boolean {
  return readPartMessage(message)?.kind === 'started'
}
