/**
 * A TCP proxy on a free loopback port in front of another address, which a test can cut and restore: while cut, every
 * open connection is destroyed and new ones are closed as soon as they are accepted (the port stays ours, so nothing
 * else can take it while the "server" is away). Used to make MariaDB unreachable for one process only.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** A running proxy. */
export interface TcpProxy {
  port: number
  /** Destroys every open connection and refuses new ones until restore(). */
  cut(): void
  restore(): void
  close(): Promise<void>
}

/** Starts a proxy to `host:port`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let up = true
  const open = new Set<Socket>()
  const server = createServer((client) => {
    if (!up) {
      client.destroy()
      return
    }
    const upstream = connect(targetPort, targetHost)
    open.add(client)
    open.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      up = false
      for (const s of open) s.destroy()
      open.clear()
    },
    restore() {
      up = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy()
        server.close(() => resolve())
      }),
  }
}
