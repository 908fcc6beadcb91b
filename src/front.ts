/**
 * Entry point: the HTTP front. The primary forks FRONT_WORKERS node:cluster workers that all listen on PORT
 * (uWS sets SO_REUSEPORT, so the kernel spreads connections), and restarts any that dies (backing off when they
 * keep dying; each restart counted in presence_link_front_worker_restarts_total). The primary serves
 * `/metrics` on METRICS_PORT: every worker's metrics, summed over IPC at each scrape, and its own.
 * Because of SO_REUSEPORT a second front on a taken PORT would get no error and silently take half the connections:
 * the primary first listens there itself with node:net, and a taken port stops it (exit 98, one line).
 */
import cluster from 'node:cluster'
import { clusterMetricsSource, createPrimaryMetrics, shareWithPrimary } from './metrics/cluster-metrics.js'
import { createDependencyGauge } from './metrics/dependency-metrics.js'
import { createFrontObserver } from './metrics/front-metrics.js'
import { startMetricsServer } from './metrics/metrics-server.js'
import { createMetricsRegistry } from './metrics/registry.js'
import { probePort } from './lib/listen-port.js'
import { restartDelayMs } from './lib/model/restart-backoff.js'
import { announceStarted, readPartMessage, reportWaiting } from './lib/part-started.js'
import { runProcess } from './runtime/process-context.js'
import { startFront } from './runtime/front-runtime.js'

const WORKER_LISTENING = 'presence-link:front-listening'

/** A worker that ran this long was healthy: the next death restarts quickly again. */
const HEALTHY_RUN_MS = 60_000

await runProcess(cluster.isPrimary ? 'front' : 'front-worker', async (ctx) => {
  if (cluster.isPrimary) {
    const { frontWorkers, port, host } = ctx.config
    const primaryMetrics = createPrimaryMetrics()
    // The workers serving now (they said they listen, and have not exited): the ones a scrape asks for metrics.
    const serving = new Set<number>()
    const servingWorkers = () => [...serving].flatMap((id) => cluster.workers?.[id] ?? [])
    await startMetricsServer(ctx, clusterMetricsSource(servingWorkers, primaryMetrics.registry), ctx.config.metricsPort)
    await probePort(port, host, 'PORT')
    let stopping = false
    const startedAt = new Map<number, number>()
    const fork = () => {
      const worker = cluster.fork()
      startedAt.set(worker.id, Date.now())
    }
    for (let i = 0; i < frontWorkers; i++) fork()
    // Workers that keep dying (a bug, a bad deploy) are restarted ever more slowly instead of forked in a loop.
    let failures = 0
    let listening = 0
    // What each worker waits for; `serve` hears the set of them, once per change.
    const waiting = new Map<number, string>()
    let relayed = ''
    const relayWaiting = () => {
      const now = [...new Set(waiting.values())].filter((r) => r !== '').join('; ')
      if (now !== relayed) reportWaiting(now)
      relayed = now
    }
    // uWS listens outside node:net, so cluster never emits 'listening': each worker reports itself instead.
    cluster.on('message', (worker, message: unknown) => {
      const part = readPartMessage(message)
      if (part?.kind === 'waiting') {
        waiting.set(worker.id, part.reason)
        relayWaiting()
        return
      }
      if ((message as { type?: unknown } | null)?.type !== WORKER_LISTENING) return
      serving.add(worker.id)
      if (++listening === frontWorkers) {
        ctx.log.info({ url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, workers: frontWorkers }, 'front listening')
        announceStarted()
      }
    })
    cluster.on('exit', (worker, code, signal) => {
      const ranMs = Date.now() - (startedAt.get(worker.id) ?? 0)
      startedAt.delete(worker.id)
      serving.delete(worker.id)
      waiting.delete(worker.id)
      if (stopping) return
      relayWaiting()
      primaryMetrics.workerRestarted()
      failures = ranMs > HEALTHY_RUN_MS ? 0 : failures + 1
      // 0.5 s after the first death in a row, doubling with each further one.
      const delay = restartDelayMs(failures - 1)
      ctx.log.error({ worker: worker.process.pid, code, signal, ranMs, failures, restartInMs: delay }, 'front worker died; restarting')
      setTimeout(() => {
        if (!stopping) fork()
      }, delay).unref()
    })
    ctx.shutdown.register('cluster', async () => {
      stopping = true
      await Promise.all(
        Object.values(cluster.workers ?? {}).map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w === undefined || w.isDead()) return resolve()
              w.once('exit', () => resolve())
              w.process.kill('SIGTERM')
            }),
        ),
      )
    })
    return
  }
  const registry = createMetricsRegistry()
  shareWithPrimary(registry)
  await startFront(ctx, createFrontObserver(registry), createDependencyGauge(registry))
  process.send?.({ type: WORKER_LISTENING })
})
