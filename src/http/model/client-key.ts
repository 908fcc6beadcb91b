/**
 * Who counts as one client for the per-client limits, and which TRUST_PROXY ranges are narrow enough to believe.
 * Pure: IP text in, key text out. An IPv4 client is its address; an IPv6 client is its /64, because one subscriber
 * (or one cloud VM) usually holds a whole /64 and can pick any of its 2^64 addresses per request.
 */

/** Broadest TRUST_PROXY range accepted per family: wider ranges would let most of the Internet forge X-Forwarded-For. */
export const TRUST_PROXY_MIN_PREFIX = { 4: 8, 6: 32 } as const

/** Parses dotted IPv4 text into its 4 bytes; undefined when malformed. */
export function parseIpv4(text: string): number[] | undefined {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return undefined
  const bytes = text.split('.').map(Number)
  return bytes.every((b) => b <= 255) ? bytes : undefined
}

/** Parses IPv6 text (with `::` and an optional dotted IPv4 tail) into its 8 hextets; undefined when malformed. */
export function parseIpv6(text: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]{2,45}$/.test(text)) return undefined
  let body = text
  const tail: number[] = []
  const lastColon = body.lastIndexOf(':')
  if (body.includes('.')) {
    const v4 = parseIpv4(body.slice(lastColon + 1))
    if (v4 === undefined) return undefined
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
    // Keep a trailing ':' of '::' so the split below still sees the gap.
    body = body.slice(0, lastColon + 1)
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1)
  }
  const halves = body.split('::')
  if (halves.length > 2) return undefined
  const group = (s: string): number[] | undefined => {
    if (s === '') return []
    const parts = s.split(':')
    if (parts.some((p) => !/^[0-9a-fA-F]{1,4}$/.test(p))) return undefined
    return parts.map((p) => parseInt(p, 16))
  }
  const head = group(halves[0]!)
  const rest = halves.length === 2 ? group(halves[1]!) : []
  if (head === undefined || rest === undefined) return undefined
  const given = head.length + rest.length + tail.length
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail]
}

/**
 * The key one client's limits are counted under: an IPv4 address as is, an IPv6 address as its /64
 * (`2001:db8:1:2::/64`). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is the IPv4 client. Anything unparsable is its own key.
 */
export function clientKey(ip: string): string {
  const lower = ip.toLowerCase()
  if (parseIpv4(lower) !== undefined) return lower
  const hextets = parseIpv6(lower)
  if (hextets === undefined) return lower
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    return `${hextets[6]! >> 8}.${hextets[6]! & 255}.${hextets[7]! >> 8}.${hextets[7]! & 255}`
  }
  return `${hextets
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(':')}::/64`
}

/**
 * Why a TRUST_PROXY entry is refused, or null when it is accepted: it must be an IP or a CIDR range no broader than
 * /8 (IPv4) or /32 (IPv6); an IPv6 range inside `::ffff:0:0/96` (IPv4-mapped) is judged as the IPv4 range it covers.
 */
export function trustProxyProblem(entry: string): string | null {
  const shown = JSON.stringify(entry.slice(0, 60))
  const [ip, bits, extra] = entry.split('/')
  if (extra !== undefined || ip === undefined) return `${shown} is not an IP address or CIDR range`
  const v4 = parseIpv4(ip)
  const v6 = v4 === undefined ? parseIpv6(ip) : undefined
  if (v4 === undefined && v6 === undefined) return `${shown} is not an IP address or CIDR range`
  if (bits === undefined) return null
  const max = v4 !== undefined ? 32 : 128
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return `${shown} is not an IP address or CIDR range`
  const prefix = Number(bits)
  const mapped = v6 !== undefined && v6.slice(0, 5).every((h) => h === 0) && v6[5] === 0xffff && prefix >= 96
  const family = v4 !== undefined || mapped ? 4 : 6
  const effective = mapped ? prefix - 96 : prefix
  const min = TRUST_PROXY_MIN_PREFIX[family]
  if (effective < min) {
    return `${shown} trusts too much of the Internet: every address in it could forge X-Forwarded-For and pick its own client address; list your proxies or a range of at most /${min} (IPv${family})`
  }
  return null
}
