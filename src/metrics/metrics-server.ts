/** A process's `/metrics`, `/healthz` and `/readyz` endpoints on its own port (node:http, apart from the API server). */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { listenOrExplain } from '../lib/listen-port.js'
import type { Config } from '../config.js'
import type { ProcessBasics } from '../lib/process-basics.js'

/** Anything that renders the text format: a prom-client Registry, or the cluster aggregation. */
export interface MetricsSource {
  readonly contentType: string
  metrics(): Promise<string>
}

/** A listening metrics server. */
export interface MetricsServer {
  port: number
  close(): Promise<void>
}

/** The variable that sets each entry point's metrics port (named when that port is taken). */
const PORT_VARIABLE: Readonly<Record<string, string>> = { front: 'METRICS_PORT', worker: 'WORKER_METRICS_PORT', gateway: 'GATEWAY_METRICS_PORT' }

/** A readiness answer: 200 when the process can do its work, 503 otherwise; the JSON body names each dependency. */
export type ReadyCheck = () => Promise<{ status: number; body: string }>

/**
 * Serves `GET /metrics` from `source` on `port` (0 picks a free one) at the configured HOST; closes on shutdown.
 * Also `GET /healthz` (200 while the process runs) and, given `ready`, `GET /readyz`. A taken port rejects with a
 * PortTakenError (the process exits 98 with one line: runtime/process-context.ts).
 */
export async function startMetricsServer(ctx: ProcessBasics & { readonly config: Pick<Config, 'host'> }, source: MetricsSource, port: number, ready?: ReadyCheck): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const get = req.method === 'GET' || req.method === 'HEAD'
    if (get && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('ok\n')
      return
    }
    if (get && path === '/readyz' && ready !== undefined) {
      ready().then(
        (r) => res.writeHead(r.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(r.body),
        () => res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end('{"status":"not_ready"}'),
      )
      return
    }
    if (path !== '/metrics' || !get) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: scrape GET /metrics${ready === undefined ? '' : ', or GET /healthz, /readyz'}\n`)
      return
    }
    source.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' })
        res.end(req.method === 'HEAD' ? undefined : text)
      },
      (err: unknown) => {
        ctx.log.warn({ err: (err as Error).message }, 'metrics collection failed')
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable; retry\n')
      },
    )
  })
  // Prometheus scrapes are short; a slow or stuck scraper must not hold sockets forever.
  server.requestTimeout = 30_000
  server.keepAliveTimeout = 65_000
  await listenOrExplain(server, port, ctx.config.host, PORT_VARIABLE[ctx.name])
  const actual = (server.address() as AddressInfo).port
  let closed: Promise<void> | undefined
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      // Prometheus keeps its connection alive between scrapes; without this, close waits for it to go idle.
      server.closeAllConnections()
    })
    return closed
  }
  ctx.shutdown.register('metrics', close)
  ctx.log.info({ host: ctx.config.host, port: actual, path: '/metrics' }, 'metrics listening')
  return { port: actual, close }
}
