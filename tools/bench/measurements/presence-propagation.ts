/**
 * Presence propagation: the sandbox sends a PRESENCE_UPDATE for a linked user through a real `presence-link gateway`,
 * and the clock stops when `GET /api/v1/callbacks/{code}` on a real front (polled back to back) shows the new activity.
 */
import { performance } from 'node:perf_hooks'
import { createCodeCache } from '../../../src/redis/code-cache.js'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { waitForFront } from '../../harness/readiness.js'
import { median, percentile } from '../../harness/stats.js'
import { createGatewayWorld, post } from './gateway-world.js'
import { buildCodeService } from '../../../src/runtime/services.js'

/** Propagation result, in milliseconds. */
export interface PropagationResult {
  updates: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Baseline in the same run: median of one plain callbacks GET (the poll's own round trip). */
  callbacksGetP50Ms: number
}

/** Measures presence propagation over `updates` updates of one linked user, on a world of its own. */
export async function measurePresencePropagation(updates = 1000): Promise<PropagationResult> {
  const world = await createGatewayWorld()
  const { scratch } = world
  const children: BenchProcess[] = []
  try {
    const codes = buildCodeService(scratch.db, createCodeCache(scratch.redis, scratch.ctx.keys))
    const user = '900000000000000001'
    await post(world, 'members', { id: user, username: 'bench' })
    const { code } = await codes.issue(user)
    await codes.bind(code.code, { platformUserId: '1', platformUsername: 'Bench_User' }, { source: 'bench' })

    children.push(startProcess({ name: 'front', script: 'src/front.js', env: scratch.env }))
    await waitForFront(scratch.port, 30_000)
    const gateway = startProcess({ name: 'gateway', script: 'src/gateway.js', env: scratch.env })
    children.push(gateway)
    await gateway.waitForLine(/presence resync done/, 60_000)

    const callbacks = `${scratch.api}/callbacks/${code.code}`
    const gets: number[] = []
    for (let i = 0; i < 200; i++) {
      const started = performance.now()
      await (await fetch(callbacks)).text()
      gets.push(performance.now() - started)
    }
    const samples: number[] = []
    for (let i = 0; i < updates; i++) {
      const marker = `Bench Game ${i}`
      const started = performance.now()
      await post(world, 'presence', { user_id: user, status: 'online', activities: [{ type: 0, name: marker }] })
      for (;;) {
        const text = await (await fetch(callbacks)).text()
        if (text.includes(`${marker};`)) break
        if (performance.now() - started > 10_000) throw new Error(`update ${i} not visible after 10 s`)
      }
      samples.push(performance.now() - started)
    }
    return { updates, p50Ms: median(samples), p99Ms: percentile(samples, 99), maxMs: Math.max(...samples), callbacksGetP50Ms: median(gets) }
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await world.remove()
  }
}
