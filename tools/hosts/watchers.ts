/**
 * Background observers the cut-off scenarios share: a poll loop that records what every callbacks answer showed and
 * when, and a watcher of the balancer's view of the fronts.
 */
import { call } from './clients.js'
import type { Deployment } from './deployment.js'
import { shownIn } from './players.js'

/** One poll: when it was sent and answered, and what it showed for each code (`failed (...)`, `HTTP 504`, ...). */
export interface PollRecord {
  sent: number
  at: number
  status: number
  shown: Record<string, string>
}

/** A running poll loop. */
export interface PollLoop {
  records: PollRecord[]
  stop(): Promise<void>
}

/** Polls `api`'s callbacks for `codes` from each address in `from` every `everyMs`, until stopped. */
export function startPolling(api: string, codes: readonly string[], from: readonly string[], everyMs: number): PollLoop {
  const records: PollRecord[] = []
  let stopped = false
  const loops = from.map(async (address, i) => {
    await new Promise((r) => setTimeout(r, (everyMs / from.length) * i))
    while (!stopped) {
      const sent = Date.now()
      const reply = await call(`${api}/callbacks/${codes.join('&')}`, { from: address, timeoutMs: 15_000 })
      records.push({ sent, at: Date.now(), status: reply.status, shown: Object.fromEntries(codes.map((c) => [c, shownIn(reply, c)])) })
      const wait = everyMs - (Date.now() - sent)
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    }
  })
  return {
    records,
    async stop() {
      stopped = true
      await Promise.all(loops)
    },
  }
}

/** The balancer's state of a front over time. */
export interface LbWatch {
  /** Every state change seen: epoch ms, front, new state. */
  changes: Array<{ at: number; front: 'front-a' | 'front-b'; state: string }>
  /** Epoch ms of the first change of `front` to exactly `state` (`UP`, `DOWN`) at or after `since`, or null. */
  firstAfter(front: 'front-a' | 'front-b', state: string, since: number): number | null
  stop(): void
}

/** Reads the balancer's stats every `everyMs` and records each front's state changes. */
export function watchBalancer(dep: Deployment, everyMs = 100): LbWatch {
  const changes: LbWatch['changes'] = []
  const last: Record<string, string> = {}
  const timer = setInterval(() => {
    dep
      .lbStates()
      .then((states) => {
        for (const front of ['front-a', 'front-b'] as const) {
          if (states[front] !== last[front]) {
            last[front] = states[front]
            changes.push({ at: Date.now(), front, state: states[front] })
          }
        }
      })
      .catch(() => undefined)
  }, everyMs)
  return {
    changes,
    firstAfter: (front, state, since) => changes.find((c) => c.front === front && c.at >= since && c.state === state)?.at ?? null,
    stop: () => clearInterval(timer),
  }
}

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
