/**
 * The machine's load average over a benchmark run, from /proc/loadavg: before, sampled every few seconds during
 * (with the section each sample fell in), and after. On a shared machine this says how far to trust the run.
 */
import { readFile } from 'node:fs/promises'

/** The 1, 5 and 15 minute load averages. */
export type LoadAverage = [number, number, number]

/** One sample during the run: seconds since the start, the section running then, the 1-minute load. */
export interface LoadSample {
  at: number
  section: string
  load1: number
}

/** The load around and during one run. */
export interface LoadTrace {
  before: LoadAverage
  samples: LoadSample[]
  after: LoadAverage
}

/** A running trace: `section` names what runs from now on; `stop` reads the last value. */
export interface LoadTracer {
  section(name: string): void
  stop(): Promise<LoadTrace>
}

/** Reads /proc/loadavg; NaN values when it cannot be read (not Linux). */
export async function readLoadAverage(): Promise<LoadAverage> {
  try {
    const [a, b, c] = (await readFile('/proc/loadavg', 'utf8')).split(' ').map(Number)
    return [a ?? Number.NaN, b ?? Number.NaN, c ?? Number.NaN]
  } catch {
    return [Number.NaN, Number.NaN, Number.NaN]
  }
}

/** Reads the load now and then every `everyMs` until stopped. */
export async function startLoadTrace(everyMs = 5000): Promise<LoadTracer> {
  const started = Date.now()
  const before = await readLoadAverage()
  const samples: LoadSample[] = []
  let section = 'setup'
  const timer = setInterval(() => {
    const at = (Date.now() - started) / 1000
    const current = section
    void readLoadAverage().then(([load1]) => samples.push({ at, section: current, load1 }))
  }, everyMs)
  timer.unref()
  return {
    section(name) {
      section = name
    },
    async stop() {
      clearInterval(timer)
      return { before, samples, after: await readLoadAverage() }
    },
  }
}
