/**
 * A real front entry (cluster primary and workers) as a child process for the cluster-metrics tests, and a GET on a
 * fresh connection so the kernel picks a worker for each request.
 */
import { execFile } from 'node:child_process'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { dropEverything, testConfig, uniqueName, type Teardown } from './stack.js'
import { sampleValue, type Scrape } from './prometheus-text.js'
import { freePort } from './scratch.js'
import { startEntryProcess, type EntryProcess } from './entry-process.js'

const FRONT_ENTRY = fileURLToPath(new URL('../../src/front.ts', import.meta.url))

/** A GET on a fresh TCP connection, so the kernel picks a worker for each request (SO_REUSEPORT). */
export function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

export interface RunningFront {
  api: string
  metrics: string
  workerPids(): Promise<number[]>
}

/** Starts the real front entry (primary plus `workers` cluster workers) as a child process, with its TS loader. */
export async function startFrontProcess(t: Teardown, workers: number): Promise<RunningFront> {
  const name = uniqueName()
  const config = testConfig(name)
  const port = await freePort()
  let front: EntryProcess | undefined
  t.teardown(async () => {
    await front?.stop()
    await dropEverything(config, name)
  })
  front = await startEntryProcess(
    FRONT_ENTRY,
    { DATABASE_URL: config.databaseUrl, REDIS_PREFIX: name, PORT: String(port), METRICS_PORT: '0', FRONT_WORKERS: String(workers), RATE_LIMITS: 'off' },
    'front',
    'front listening',
  )
  const pid = String(front.child.pid)
  return {
    api: `http://127.0.0.1:${port}/api/v1`,
    metrics: front.metrics,
    async workerPids() {
      const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=', '--ppid', pid])
      return stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0)
    },
  }
}

export const callbacks200 = (s: Scrape) => sampleValue(s, 'presence_link_http_requests_total', { route: 'callbacks', status: '200' }) ?? 0

