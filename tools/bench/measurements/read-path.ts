/**
 * The read path against the ceiling (issue 11, issue 23): callbacks and rpc with rate limits off on the bench's front,
 * then again on a second front with the contract's rate limits on, polled by many game servers through a trusted proxy
 * (client-traffic.ts, each within its budget: the cost measured is the limiter's work), each alternating with the bare hyper-express ceiling in the same run
 * (for the limits-on front, a ceiling of its own that sends that front's headers, RateLimit-* included); and the Redis
 * commands one warm callbacks request sends either way (MONITOR, counting only this scratch prefix's keys, since the
 * Redis may be shared). `npm run bench` and `npm run bench:read-path` both take their figures from here.
 */
import { send } from '../../harness/http.js'
import { childPids } from '../../harness/proc-sampler.js'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { sleep, waitForFront } from '../../harness/readiness.js'
import { freePort } from '../../harness/free-port.js'
import { commandsDuring } from '../../harness/redis-monitor.js'
import { fixed, int } from '../../harness/stats.js'
import type { BenchSettings } from '../settings.js'
import type { BenchEnv } from './bench-env.js'
import { compareWithCeiling, startCeiling, type Comparison } from './ceiling-comparison.js'
import { clientAddress, MANY_CLIENTS, type ClientTraffic } from './client-traffic.js'

/** Redis commands per warm request, in total and by command name. */
export interface CommandCount {
  perRequest: number
  /** `name per-request` pairs, most frequent first. */
  byCommand: Array<[string, number]>
}

/** Everything the read path measured in one run. */
export interface ReadPathResult {
  limitsOff: { callbacks: Comparison; rpc: Comparison }
  limitsOn: { callbacks: Comparison; rpc: Comparison }
  /** How the limits-on front differs from the limits-off one (its environment, as the report prints it). */
  limitsOnSetup: string
  /** Sequential warm callbacks requests the command counts are taken over. */
  warmRequests: number
  commands: { off: CommandCount; on: CommandCount }
}

/** The path and answers every read-path run uses (seeded before: see linked-users.ts). */
export interface ReadPathInput {
  /** `CODE&CODE&...` of the seeded linked users. */
  path: string
  callbacksBytes: number
  rpcBytes: number
}

const WARM_REQUESTS = 1000

/** Redis commands naming `prefix` sent while `work` runs, per unit of work. */
async function commandsPer(redisUrl: string, prefix: string, units: number, work: () => Promise<void>): Promise<CommandCount> {
  const counts = new Map<string, number>()
  for (const args of await commandsDuring(redisUrl, work)) {
    if (!args.some((a) => a.startsWith(`${prefix}:`))) continue
    const name = String(args[0]).toLowerCase()
    counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const byCommand = [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]): [string, number] => [name, n / units])
  return { perRequest: total / units, byCommand }
}

/** Clients the warm requests come from through the trusted proxy (each sends WARM_REQUESTS / WARM_CLIENTS, within its budget). */
const WARM_CLIENTS = 100

/** Redis commands per warm callbacks request, one request at a time; `proxied` names WARM_CLIENTS clients in turn. */
async function warmCommands(env: BenchEnv, api: string, path: string, proxied = false): Promise<CommandCount> {
  return commandsPer(env.scratch.config.redisUrl, env.scratch.name, WARM_REQUESTS, async () => {
    for (let i = 0; i < WARM_REQUESTS; i++) {
      await send(`${api}/callbacks/${path}`, 'GET', undefined, proxied ? { 'x-forwarded-for': clientAddress(i % WARM_CLIENTS) } : {})
    }
  })
}

/**
 * Measures callbacks and rpc with limits off on `env`'s front, then starts a front with limits on over the same
 * scratch world with a ceiling of its own (answering with that front's headers), measures again and stops both. The
 * limits-off ceiling must be running (`env.ceilingPid`).
 */
export async function measureReadPath(env: BenchEnv, input: ReadPathInput, settings: BenchSettings, log: (message: string) => void): Promise<ReadPathResult> {
  const { scratch } = env
  const both = async (on: BenchEnv, traffic?: ClientTraffic) => ({
    callbacks: await compareWithCeiling(on, settings, 'callbacks', input.path, input.callbacksBytes, log, traffic),
    rpc: await compareWithCeiling(on, settings, 'rpc', input.path, input.rpcBytes, log, traffic),
  })
  const limitsOff = await both(env)
  const off = await warmCommands(env, scratch.api, input.path)
  log(`warm callbacks, rate limits off: ${fixed(off.perRequest, 3)} Redis commands per request`)

  // A second front with the contract's limits on (callbacks and rpc 100 per 10 s per client), reached by many game
  // servers through a trusted proxy (client-traffic.ts): each client stays within its budget, so nothing is refused,
  // and every request still pays for its limit as in production. The ceiling gets the same requests.
  const port = await freePort()
  const limited = startProcess({ name: 'front-limited', script: 'src/cli.js', args: ['front'], env: { ...scratch.env, PORT: String(port), RATE_LIMITS: '', TRUST_PROXY: '127.0.0.1' } })
  let limitedCeiling: BenchProcess | undefined
  try {
    await waitForFront(port)
    // The marks watcher reads the shard marks once a second.
    await sleep(1500)
    const api = `http://127.0.0.1:${port}/api/v1`
    // Its ceiling answers with this front's headers (RateLimit-* included), taken from a client outside the traffic.
    const outsider = { 'x-forwarded-for': clientAddress(MANY_CLIENTS.clients + 1) }
    const [callbacks, rpc] = [await send(`${api}/callbacks/${input.path}`, 'GET', undefined, outsider), await send(`${api}/rpc/${input.path}`, 'GET', undefined, outsider)]
    if (callbacks.status !== 200 || rpc.status !== 200 || callbacks.headers['ratelimit-limit'] === undefined) throw new Error(`the limited front answered ${callbacks.status} and ${rpc.status}`)
    const ceilingPort = await freePort()
    limitedCeiling = await startCeiling(ceilingPort, { callbacks, rpc }, 'ceiling-limited')
    const limitedEnv: BenchEnv = {
      ...env,
      scratch: { ...scratch, api },
      frontWorkerPids: () => childPids(limited.pid),
      ceiling: `http://127.0.0.1:${ceilingPort}/api/v1`,
      ceilingPid: limitedCeiling.pid,
    }
    const limitsOn = await both(limitedEnv, MANY_CLIENTS)
    const on = await warmCommands(env, api, input.path, true)
    log(`warm callbacks, rate limits on: ${fixed(on.perRequest, 3)} Redis commands per request`)
    return { limitsOff, limitsOn, limitsOnSetup: `default RATE_LIMITS (callbacks=100/10, rpc=100/10), TRUST_PROXY=127.0.0.1, ${int(MANY_CLIENTS.clients)} client addresses in X-Forwarded-For`, warmRequests: WARM_REQUESTS, commands: { off, on } }
  } finally {
    await limitedCeiling?.stop()
    await limited.stop()
  }
}
