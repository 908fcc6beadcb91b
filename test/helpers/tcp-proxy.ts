/**
 * A TCP proxy on a free loopback port in front of another address, which a test can break in two ways:
 * - `cut()`: every open connection is destroyed and new ones are closed as soon as they are accepted (the port stays
 *   ours, so nothing else can take it while the "server" is away), until `restore()`. Used to make MariaDB
 *   unreachable for one process only.
 * - `stall()`: a partition. Nothing is closed, but no byte goes through in either direction (new connections are
 *   accepted and hang the same way, or with `{ newConnections: 'fail' }` are closed at once, as attempts that time
 *   out would be); `resume()` delivers every held byte late, in order, as TCP does once a cut path heals.
 *   Connections the client closed meanwhile are gone, as they would be.
 * - `holdNew()`: connections made from now on are accepted and connected, but their bytes are held until
 *   `releaseNew()`; those already open go on (a slow server for new clients only: a Sentinel whose answer to a
 *   reconnecting client is late while its subscribers still hear everything).
 * - `retarget(port)`: connections made from now on go to another port (with `cut()` and `restore()`: a failover that
 *   moves a client to another server behind the same address).
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
  /** Holds the bytes of connections made from now on until releaseNew(); open ones are not affected. */
  holdNew(): void
  /** Delivers what the held connections sent and forwards theirs again; new connections are no longer held. */
  releaseNew(): void
  /** Sends connections made from now on to `port` (on the same host). */
  retarget(port: number): void
  close(): Promise<void>
}

interface Pair {
  client: Socket
  upstream: Socket
  /** Bytes held while stalled, per direction. */
  toUpstream: Buffer[]
  toClient: Buffer[]
  /** Made while new connections were held, and not yet released. */
  held: boolean
}

/** Starts a proxy to `host:port`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let up = true
  let stalled = false
  let failNew = false
  let holdingNew = false
  const pairs = new Set<Pair>()
  const server = createServer((client) => {
    if (!up || (stalled && failNew)) {
      client.destroy()
      return
    }
    const pair: Pair = { client, upstream: connect(targetPort, targetHost), toUpstream: [], toClient: [], held: holdingNew }
    pairs.add(pair)
    const drop = () => {
      client.destroy()
      pair.upstream.destroy()
      pairs.delete(pair)
    }
    client.on('error', drop).on('close', drop)
    pair.upstream.on('error', drop).on('close', drop)
    client.on('data', (chunk: Buffer) => (stalled || pair.held ? pair.toUpstream.push(chunk) : pair.upstream.write(chunk)))
    pair.upstream.on('data', (chunk: Buffer) => (stalled || pair.held ? pair.toClient.push(chunk) : client.write(chunk)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  /** Delivers, in order, what was held for the pairs `which` picks. */
  const flush = (which: (p: Pair) => boolean) => {
    for (const p of pairs) {
      if (!which(p)) continue
      for (const chunk of p.toUpstream.splice(0)) p.upstream.write(chunk)
      for (const chunk of p.toClient.splice(0)) p.client.write(chunk)
    }
  }
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
      flush((p) => !p.held)
    },
    holdNew() {
      holdingNew = true
    },
    releaseNew() {
      holdingNew = false
      for (const p of pairs) p.held = false
      if (!stalled) flush(() => true)
    },
    retarget(port) {
      targetPort = port
    },
    close: () =>
      new Promise<void>((resolve) => {
        destroyAll()
        server.close(() => resolve())
      }),
  }
}
