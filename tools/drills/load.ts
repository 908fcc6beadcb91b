/**
 * The drills' steady load: open-loop log events (each with a unique description `<tag>#<n>` so MySQL can be counted
 * against what the clients were told), binds of fresh codes and callbacks polls, at fixed rates, until stopped.
 * Every answer is recorded: accepted events with their time, bound codes, and failures by kind per route.
 */
import { Agent, request } from 'node:http'
import { countError, errorKind, type ErrorCounts } from './tally.js'

/** What to send and how fast. */
export interface LoadSpec {
  /** `http://127.0.0.1:<port>/api/v1`. */
  api: string
  /** `Bearer <key>`. */
  bearer: string
  /** The drill's run tag: the events' `event_type` and the start of their descriptions. */
  tag: string
  logsPerSecond: number
  bindsPerSecond: number
  pollsPerSecond: number
  /** Fresh codes to bind, one per bind (binding stops when they run out). */
  bindCodes: readonly string[]
  /** The `{codes}` path of the callbacks polls. */
  pollCodes: string
}

/** Everything the clients saw. */
export interface LoadResult {
  /** Event id (`<tag>#<n>`) → epoch ms of its `{"status":"logged"}` answer. */
  accepted: Map<string, number>
  /** Log events sent. */
  sent: number
  /** Code → platform user id, for every bind answered `bound`. */
  bound: Map<string, number>
  bindsSent: number
  polls: number
  /** Epoch ms of every callbacks poll answered 200, in answer order. */
  pollOkTimes: number[]
  /** Failures by route (`log`, `bind`, `callbacks`) and kind. */
  errors: Record<'log' | 'bind' | 'callbacks', ErrorCounts>
}

/** A running load. */
export interface Load {
  /** What has been seen so far (live; do not change it). */
  result: LoadResult
  /** Epoch ms of the first log event accepted at or after `sinceMs`, or null. */
  firstAcceptedAfter(sinceMs: number): number | null
  /** Stops sending and resolves once every request in flight has been answered or has failed. */
  stop(): Promise<LoadResult>
}

const REQUEST_TIMEOUT_MS = 15_000
const TICK_MS = 10

function post(agent: Agent, url: string, body: string | undefined, bearer: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: bearer }
    if (body !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(Buffer.byteLength(body))
    }
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', agent, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })))
    req.on('error', reject)
    req.end(body)
  })
}

function kindOf(err: unknown): string {
  const e = err as { code?: string; message?: string }
  return errorKind(undefined, e.code ?? e.message)
}

/** Starts sending at the spec's rates. */
export function startLoad(spec: LoadSpec): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const result: LoadResult = { accepted: new Map(), sent: 0, bound: new Map(), bindsSent: 0, polls: 0, pollOkTimes: [], errors: { log: {}, bind: {}, callbacks: {} } }
  const acceptedTimes: number[] = []
  const inFlight = new Set<Promise<void>>()
  const track = (p: Promise<void>) => {
    inFlight.add(p)
    void p.finally(() => inFlight.delete(p))
  }
  const startedAt = Date.now()

  const sendLog = (n: number) => {
    const id = `${spec.tag}#${n}`
    const body = JSON.stringify({ event_type: spec.tag, description: id, platform_username: 'DrillPlayer', platform_user_id: 156, issued_by: 'drills' })
    result.sent++
    track(
      post(agent, `${spec.api}/log/server`, body, spec.bearer).then(
        (res) => {
          if (res.status >= 200 && res.status < 300 && res.text.includes('"logged"')) {
            const now = Date.now()
            result.accepted.set(id, now)
            acceptedTimes.push(now)
          } else countError(result.errors.log, errorKind(res.status, undefined))
        },
        (err: unknown) => countError(result.errors.log, kindOf(err)),
      ),
    )
  }
  const sendBind = (n: number) => {
    const code = spec.bindCodes[n]
    if (code === undefined) return
    const platformUserId = 5_000_000 + n
    result.bindsSent++
    const body = JSON.stringify({ code, platform_username: `Drill_${n}`, platform_user_id: platformUserId })
    track(
      post(agent, `${spec.api}/bind`, body, spec.bearer).then(
        (res) => {
          if (res.status === 200 && res.text.includes('"bound"')) result.bound.set(code, platformUserId)
          else if (res.status >= 300) countError(result.errors.bind, errorKind(res.status, undefined))
        },
        (err: unknown) => countError(result.errors.bind, kindOf(err)),
      ),
    )
  }
  const sendPoll = () => {
    result.polls++
    track(
      post(agent, `${spec.api}/callbacks/${spec.pollCodes}`, undefined, spec.bearer).then(
        (res) => {
          if (res.status === 200) result.pollOkTimes.push(Date.now())
          else countError(result.errors.callbacks, errorKind(res.status, undefined))
        },
        (err: unknown) => countError(result.errors.callbacks, kindOf(err)),
      ),
    )
  }

  // Open loop: each tick sends whatever became due since the start, so a slow answer delays nothing else.
  let logs = 0
  let binds = 0
  let polls = 0
  const timer = setInterval(() => {
    const elapsed = (Date.now() - startedAt) / 1000
    while (logs < Math.floor(elapsed * spec.logsPerSecond)) sendLog(logs++)
    while (binds < Math.floor(elapsed * spec.bindsPerSecond)) sendBind(binds++)
    while (polls < Math.floor(elapsed * spec.pollsPerSecond)) {
      polls++
      sendPoll()
    }
  }, TICK_MS)

  return {
    result,
    firstAcceptedAfter(sinceMs) {
      // Answers arrive roughly in time order but not exactly: scan all.
      let best: number | null = null
      for (const t of acceptedTimes) if (t >= sinceMs && (best === null || t < best)) best = t
      return best
    },
    async stop() {
      clearInterval(timer)
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
      agent.destroy()
      return result
    },
  }
}
