/**
 * The one message a part sends `serve` over the IPC channel `serve` gives it: "started, and every dependency
 * answers". `serve` says the service is up only once each such part has sent it (the front is checked on /readyz).
 */
import cluster from 'node:cluster'

const PART_STARTED = 'presence-link:part-started'

/** Tells `serve` this part has started; does nothing in a part run on its own (no IPC channel) or in a cluster worker. */
export function announceStarted(): void {
  if (cluster.isPrimary && process.connected) process.send?.({ type: PART_STARTED })
}

/** Is `message` (from a child's IPC channel) a part's start announcement? */
export function isStartAnnouncement(message: unknown): boolean {
  return (message as { type?: unknown } | null)?.type === PART_STARTED
}
