/** Bind at a fixed rate: an open-loop sender of `POST /api/v1/bind`, each with a fresh code and a new account. */
import { performance } from 'node:perf_hooks'
import { postJson } from '../../harness/http.js'
import { sleep } from '../../harness/readiness.js'
import type { BenchSettings } from '../settings.js'
import { percentile } from '../../harness/stats.js'
import type { BenchEnv } from './bench-env.js'

/** One fixed-rate run; latencies in milliseconds. */
export interface BindRun {
  sent: number
  bound: number
  p50: number
  p99: number
  max: number
}

/**
 * Open loop at a fixed rate: request i is due at start + i/rate, and its latency counts from that due time,
 * so a slow response delays nothing else and cannot hide queueing (no coordinated omission).
 */
export async function bindAtFixedRate(env: BenchEnv, settings: BenchSettings, codes: readonly string[], run: number): Promise<BindRun> {
  const count = settings.bindRate * settings.bindSeconds
  const interval = 1000 / settings.bindRate
  const latencies: number[] = []
  let bound = 0
  const pending: Promise<void>[] = []
  const start = performance.now() + 50
  for (let i = 0; i < count; i++) {
    const due = start + i * interval
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    const body = { code: codes[i]!, platform_username: `Bench_${run}_${i}`, platform_user_id: 1_000_000 * run + i + 1 }
    pending.push(
      postJson(`${env.scratch.api}/bind`, body, env.bearer).then((res) => {
        latencies.push(performance.now() - due)
        if ((res.body as { status?: string }).status === 'bound') bound++
      }),
    )
  }
  await Promise.all(pending)
  return { sent: count, bound, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
}
