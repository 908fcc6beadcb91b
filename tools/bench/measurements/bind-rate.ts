/**
 * Bind at a fixed rate: an open-loop sender of `POST /api/v1/bind`, each with a fresh code and a new account; and
 * where a bind's time goes, read from its BullMQ job's own times (added, taken by the worker, finished; whole ms).
 */
import { performance } from 'node:perf_hooks'
import type { Queue } from 'bullmq'
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

/** Medians, in ms, of the phases of the binds of a run (BullMQ's job times are whole milliseconds). */
export interface BindPhases {
  /** From the request's due time until the job was in Redis (the front's work and the add). */
  toQueued: number
  /** From the job in Redis until a worker took it. */
  toTaken: number
  /** The worker's work: MySQL transaction, Redis write-through, notices. */
  working: number
  /** From the job finished until the front had answered (the completion event and the reply). */
  toAnswered: number
}

/** What one bind of a run left: its due and answer times (epoch ms), and its job id once read back. */
interface BindTrace {
  code: string
  dueAt: number
  answeredAt: number
}

const traces = new Map<number, BindTrace[]>()

/** The phases of run `run`'s binds, from their jobs in `queue` (matched by code); NaN where none was found. */
export async function bindPhases(queue: Queue, run: number): Promise<BindPhases> {
  const byCode = new Map((traces.get(run) ?? []).map((t) => [t.code, t]))
  const jobs = await queue.getJobs(['completed'], 0, -1)
  const phases = { toQueued: [] as number[], toTaken: [] as number[], working: [] as number[], toAnswered: [] as number[] }
  for (const job of jobs) {
    const trace = byCode.get((job.data as { code?: string }).code ?? '')
    if (trace === undefined || job.processedOn === undefined || job.finishedOn === undefined) continue
    phases.toQueued.push(job.timestamp - trace.dueAt)
    phases.toTaken.push(job.processedOn - job.timestamp)
    phases.working.push(job.finishedOn - job.processedOn)
    phases.toAnswered.push(trace.answeredAt - job.finishedOn)
  }
  return { toQueued: percentile(phases.toQueued, 50), toTaken: percentile(phases.toTaken, 50), working: percentile(phases.working, 50), toAnswered: percentile(phases.toAnswered, 50) }
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
  // Epoch ms of `start`, to compare with BullMQ's job times.
  const epochOfStart = Date.now() + 50
  const runTraces: BindTrace[] = []
  traces.set(run, runTraces)
  for (let i = 0; i < count; i++) {
    const due = start + i * interval
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    const body = { code: codes[i]!, platform_username: `Bench_${run}_${i}`, platform_user_id: 1_000_000 * run + i + 1 }
    pending.push(
      postJson(`${env.scratch.api}/bind`, body, env.bearer).then((res) => {
        const latency = performance.now() - due
        latencies.push(latency)
        runTraces.push({ code: body.code, dueAt: epochOfStart + (due - start), answeredAt: epochOfStart + (due - start) + latency })
        if ((res.body as { status?: string }).status === 'bound') bound++
      }),
    )
  }
  await Promise.all(pending)
  return { sent: count, bound, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
}
