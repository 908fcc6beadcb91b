/**
 * Entry point: the HTTP front. The primary forks FRONT_WORKERS node:cluster workers that all listen on PORT
 * (uWS sets SO_REUSEPORT, so the kernel spreads connections), and restarts any that dies. The primary serves
 * `/metrics` on METRICS_PORT: every worker's metrics, summed over IPC at each scrape.
 */
import cluster from 'node:cluster'
import { clusterMetricsSource, shareWithPrimary } from './metrics/cluster-metrics.js'
import { createFrontObserver } from './metrics/front-metrics.js'
import { startMetricsServer } from './metrics/metrics-server.js'
import { createMetricsRegistry } from './metrics/registry.js'
import { runProcess } from './runtime/process-context.js'
import { startFront } from './runtime/front-runtime.js'

const WORKER_LISTENING = 'presence-link:front-listening'

await runProcess(cluster.isPrimary ? 'front' : 'front-worker', async (ctx) => {
  if (cluster.isPrimary) {
    const { frontWorkers, port, host } = ctx.config
    await startMetricsServer(ctx, clusterMetricsSource(), ctx.config.metricsPort)
    let stopping = false
    const fork = () => cluster.fork()
    for (let i = 0; i < frontWorkers; i++) fork()
    let listening = 0
    // uWS listens outside node:net, so cluster never emits 'listening': each worker reports itself instead.
    cluster.on('message', (_worker, message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== WORKER_LISTENING) return
      if (++listening === frontWorkers) ctx.log.info({ url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, workers: frontWorkers }, 'front listening')
    })
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return
      ctx.log.error({ worker: worker.process.pid, code, signal }, 'front worker died; restarting')
      setTimeout(fork, 500).unref()
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
  await startFront(ctx, createFrontObserver(registry))
  process.send?.({ type: WORKER_LISTENING })
})
