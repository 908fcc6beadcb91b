/**
 * A TCP proxy on a free loopback port in front of another address, which a test can break in two ways:
 * - `cut()`: every open connection is destroyed and new ones are closed as soon as they are accepted (the port stays
 *   ours, so nothing else can take it while the "server" is away), until `restore()`. Used to make MariaDB
 *   unreachable for one process only.
 * - `stall()`: a partition. Nothing is closed, but no byte goes through in either direction (new connections are
 *   accepted and hang the same way, or with `{ newConnections: 'fail' }` are closed at once, as attempts that time
 *   out would be); `resume()` delivers every held byte late, in order, as TCP does once a cut path heals.
 *   Connections the client closed meanwhile are gone, as they would be.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

/** A running proxy. */
export interface TcpProxy {
  port: number
  /** Destroys every open connection and refuses new ones until restore(). */
  cut(): void
  restore(): void
  /** Holds every byte of every open connection until resume(); closes none of them. New ones hang too, or fail. */
  stall(opts?: { newConnections?: 'hang' | 'fail' }): void
  /** Delivers what was held and forwards again. */
  resume(): void
  close(): Promise<void>
}

interface Pair {
  client: Socket
  upstream: Socket
  /** Bytes held while stalled, per direction. */
  toUpstream: Buffer[]
  toClient: Buffer[]
}

/** Starts a proxy to `host:port`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let up = true
  let stalled = false
  let failNew = false
  const pairs = new Set<Pair>()
  const server = createServer((client) => {
    if (!up || (stalled && failNew)) {
      client.destroy()
      return
    }
    const pair: Pair = { client, upstream: connect(targetPort, targetHost), toUpstream: [], toClient: [] }
    pairs.add(pair)
    const drop = () => {
      client.destroy()
      pair.upstream.destroy()
      pairs.delete(pair)
    }
    client.on('error', drop).on('close', drop)
    pair.upstream.on('error', drop).on('close', drop)
    client.on('data', (chunk: Buffer) => (stalled ? pair.toUpstream.push(chunk) : pair.upstream.write(chunk)))
    pair.upstream.on('data', (chunk: Buffer) => (stalled ? pair.toClient.push(chunk) : client.write(chunk)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const destroyAll = () => {
    for (const p of pairs) {
      p.client.destroy()
      p.upstream.destroy()
    }
    pairs.clear()
  }
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      up = false
      destroyAll()
    },
    restore() {
      up = true
    },
    stall(opts = {}) {
      stalled = true
      failNew = opts.newConnections === 'fail'
    },
    resume() {
      stalled = false
      for (const p of pairs) {
        for (const chunk of p.toUpstream.splice(0)) p.upstream.write(chunk)
        for (const chunk of p.toClient.splice(0)) p.client.write(chunk)
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        destroyAll()
        server.close(() => resolve())
      }),
  }
}
