/**
 * Traffic of many game servers instead of one address hammering (issue 23): `clients` distinct client addresses
 * reach the front through a trusted proxy (the bench's own address, 127.0.0.1, is the front's TRUST_PROXY, and each
 * request names its client in X-Forwarded-For). Each autocannon connection carries its own share of the clients,
 * and each client polls at its own pace: half of them twice as often as the other half, in a shuffled order that
 * repeats (a fixed seed, so every run and the ceiling see the same sequence). The ceiling ignores the header, so both
 * sides of a comparison cost autocannon the same.
 */
import type { RequestSpec } from 'autocannon'

/** Many clients through a trusted proxy. */
export interface ClientTraffic {
  /** Distinct client addresses. */
  clients: number
}

/** The traffic the limits-on runs use: at 150,000 req/s the faster half of 30,000 clients sends about 67 requests per 10 s (budget 100). */
export const MANY_CLIENTS: ClientTraffic = { clients: 30_000 }

/** The address of client `i` (0-based), in 10.0.0.0/8. */
export function clientAddress(i: number): string {
  const n = i + 1
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
}

/** How many times client `i` appears in one cycle of its connection: 1 or 2, by a hash of `i` (not its parity, which a connection's clients share). */
export function paceOf(i: number): number {
  return ((Math.imul(i, 2654435761) >>> 16) & 1) + 1
}

/** A small seeded generator (mulberry32), so the shuffled order is the same in every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The request cycle of connection `c` of `connections`: its clients (c, c + connections, ...), each `paceOf` times. */
export function connectionRequests(traffic: ClientTraffic, connections: number, c: number, path: string): RequestSpec[] {
  const order: number[] = []
  for (let i = c; i < traffic.clients; i += connections) for (let k = 0; k < paceOf(i); k++) order.push(i)
  const random = seeded(c + 1)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  return order.map((i) => ({ method: 'GET', path, headers: { 'x-forwarded-for': clientAddress(i) } }))
}

/** The busiest client's share of all requests when every connection sends at the same rate. */
export function busiestShare(traffic: ClientTraffic, connections: number): number {
  let most = 0
  for (let c = 0; c < connections; c++) {
    let cycle = 0
    let fastest = 0
    for (let i = c; i < traffic.clients; i += connections) {
      cycle += paceOf(i)
      fastest = Math.max(fastest, paceOf(i))
    }
    if (cycle > 0) most = Math.max(most, fastest / cycle / connections)
  }
  return most
}
