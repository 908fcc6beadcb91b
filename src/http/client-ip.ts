/** The client's IP: the socket peer, unless that peer is a trusted proxy, then the nearest untrusted X-Forwarded-For hop. */
import { BlockList, isIP } from 'node:net'

/** Resolves the client IP of a request. */
export type ClientIpResolver = (socketIp: string, forwardedFor: string | undefined) => string

/** Strips the IPv4-mapped IPv6 prefix uWS reports for IPv4 peers on a dual-stack socket. */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase()
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower
}

/** Creates a resolver trusting the given IPs and CIDR ranges. */
export function createClientIpResolver(trusted: readonly string[]): ClientIpResolver {
  if (trusted.length === 0) return (socketIp) => normalizeIp(socketIp)
  const list = new BlockList()
  for (const entry of trusted) {
    const [ip, bits] = entry.split('/') as [string, string | undefined]
    const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(ip, family)
    else list.addSubnet(ip, Number(bits), family)
  }
  const isTrusted = (ip: string) => {
    const family = isIP(ip)
    return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4')
  }
  return (socketIp, forwardedFor) => {
    const peer = normalizeIp(socketIp)
    if (!isTrusted(peer) || forwardedFor === undefined) return peer
    // Walk from the nearest hop: each trusted proxy vouches only for the hop before it.
    const hops = forwardedFor.split(',').map((h) => normalizeIp(h.trim()))
    let client = peer
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!
      if (isIP(hop) === 0) break
      client = hop
      if (!isTrusted(hop)) break
    }
    return client
  }
}
