/**
 * wrk (Debian's `wrk`, 4.1), the load generator the log benchmarks use: about 14 µs of CPU per request on this
 * machine against autocannon's 27-58, so on two cores it leaves the service under test most of the machine. A run is
 * one wrk process for a duration, with a Lua script of ours that writes each request (`request()`), counts the
 * answers by status (`response()`) and prints one line the harness reads (`done()`).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuSeconds } from './proc-sampler.js'

/** What one wrk run measured. */
export interface WrkResult {
  /** Answers with status 200. */
  ok: number
  /** Other answers. */
  other: number
  /** Socket errors and timeouts wrk counted. */
  errors: number
  /** The run's length as wrk measured it, in seconds. */
  seconds: number
  /** The 99th percentile of answer times, in ms. */
  p99Ms: number
  /** The wrk process's CPU seconds (user + system). */
  cpuSeconds: number
}

/** A run: where to, how many connections for how long, and the Lua `request()` body with its arguments. */
export interface WrkRun {
  url: string
  connections: number
  seconds: number
  /**
   * Lua defining `request()` (it may read the globals `args` from `args`, and `counter`, incremented before each call).
   * The harness adds the counting of answers and the result line.
   */
  requestLua: string
  args?: readonly string[]
}

const COUNTING = `
counter = 0
ok = 0
other = 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(a) args = a end
function response(status, headers, body)
  if status == 200 then ok = ok + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local o, x = 0, 0
  for _, t in ipairs(threads) do o = o + t:get("ok"); x = x + t:get("other") end
  local e = summary.errors
  io.write(string.format("WRK-RESULT %d %d %d %d %.3f\\n", o, x, e.connect + e.read + e.write + e.status + e.timeout, summary.duration, latency:percentile(99) / 1000))
end
`

/** Runs wrk once (one thread: the bench's machine has two cores, and the service needs them). */
export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const dir = await mkdtemp(join(tmpdir(), 'pl-wrk-'))
  const script = join(dir, 'load.lua')
  await writeFile(script, `${COUNTING}\n${run.requestLua}\n`)
  try {
    const child = spawn('wrk', ['-t1', `-c${run.connections}`, `-d${run.seconds}s`, '--timeout', '10s', '-s', script, run.url, '--', ...(run.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    // wrk's CPU, read from /proc while it runs (a process that has exited can no longer be read): every 100 ms, and
    // once more as it prints its result.
    let cpu = Number.NaN
    const sample = () => void cpuSeconds(child.pid ?? 0).then((s) => (Number.isNaN(s) ? undefined : (cpu = Math.max(Number.isNaN(cpu) ? 0 : cpu, s))))
    const sampler = setInterval(sample, 100)
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8')
      if (out.includes('WRK-RESULT')) sample()
    })
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')))
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', () => resolve())
    }).finally(() => clearInterval(sampler))
    const line = /WRK-RESULT (\d+) (\d+) (\d+) (\d+) ([\d.]+)/.exec(out)
    if (line === null) throw new Error(`wrk printed no result (is Debian's wrk installed?):\n${out.slice(-2000)}`)
    return { ok: Number(line[1]), other: Number(line[2]), errors: Number(line[3]), seconds: Number(line[4]) / 1e6, p99Ms: Number(line[5]), cpuSeconds: cpu }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
