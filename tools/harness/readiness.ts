/** Waiting in the benchmarks: polling until something holds, a front answering /readyz, queue consumers attached. */
import type { Redis } from 'ioredis'
import { QueueName } from '../../src/queue/names.js'
import { createQueue } from '../../src/queue/queues.js'

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `check` until it is true, or throws after `timeoutMs`; a throwing check counts as false. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await check().catch(() => false)) return
    await sleep(everyMs)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Waits until the front on `port` answers `GET /readyz` with 200. */
export async function waitForFront(port: number, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  await waitFor(
    'the front',
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`)
      await res.arrayBuffer()
      return res.status === 200
    },
    timeoutMs,
    everyMs,
  )
}

/** Waits until every named queue under `bullPrefix` has at least one worker attached. */
export async function waitForWorkers(redis: Redis, bullPrefix: string, names: readonly QueueName[]): Promise<void> {
  const queues = names.map((name) => createQueue(name, redis, bullPrefix))
  try {
    await waitFor('the worker', async () => (await Promise.all(queues.map((q) => q.getWorkersCount()))).every((n) => n > 0))
  } finally {
    await Promise.all(queues.map((q) => q.close()))
  }
}
