/**
 * The test hosts of `npm run hosts`: which host runs which part, its address, and the names every host resolves.
 * Pure (no I/O): tools/hosts/netns.ts turns this into network namespaces joined by veth pairs on one bridge.
 *
 * The bridge lives in the root namespace, where the harness itself plays "the Internet": game servers polling and
 * posting from CLIENT_ADDRESSES, one address per simulated game server, so per-client limits can be told apart.
 */

/** Every test host. */
export type HostName = 'lb' | 'front-a' | 'front-b' | 'worker' | 'gateway-a' | 'gateway-b' | DataHost | 'sandbox'

/** The data hosts: a MariaDB Galera node, a Redis node and a Sentinel on each (the Redis primary starts on data-a). */
export type DataHost = 'data-a' | 'data-b' | 'data-c'

/** The data hosts in order: data-a bootstraps the Galera cluster (haproxy/haproxy.cfg prefers data-c as the writer). */
export const DATA_HOSTS: readonly DataHost[] = ['data-a', 'data-b', 'data-c']

/** One host: its namespace, its address on the bridge, and what runs there. */
export interface HostSpec {
  name: HostName
  address: string
  runs: string
}

/** The /24 all hosts share. */
export const SUBNET_PREFIX = '10.77.0'
/** Mask length of the subnet. */
export const SUBNET_BITS = 24
/** The bridge's own address (the root namespace, where the harness runs). */
export const BRIDGE_ADDRESS = `${SUBNET_PREFIX}.1`
/** Name of the bridge joining the hosts. */
export const BRIDGE = 'plhosts0'
/** Every namespace, veth and hosts file made by the harness starts with this, so a crashed run can be cleaned up. */
export const NAME_PREFIX = 'plh-'

/** The host table (docs/operations.md "A tested multi-host layout" shows the same). */
export const HOSTS: readonly HostSpec[] = [
  { name: 'lb', address: `${SUBNET_PREFIX}.10`, runs: 'HAProxy (haproxy/haproxy.cfg): :8080 to the fronts, :3306 to one Galera node, :8404 stats and metrics' },
  { name: 'front-a', address: `${SUBNET_PREFIX}.11`, runs: 'presence-link front (:8080, metrics :9464), TRUST_PROXY = lb' },
  { name: 'front-b', address: `${SUBNET_PREFIX}.12`, runs: 'presence-link front (:8080, metrics :9464), TRUST_PROXY = lb' },
  { name: 'worker', address: `${SUBNET_PREFIX}.13`, runs: 'presence-link worker (every consumer and delivery; metrics :9465); migrate, keys' },
  { name: 'gateway-a', address: `${SUBNET_PREFIX}.14`, runs: 'presence-link gateway, SHARD_IDS=0 of SHARD_COUNT=2 (metrics :9466)' },
  { name: 'gateway-b', address: `${SUBNET_PREFIX}.15`, runs: 'presence-link gateway, SHARD_IDS=1 of SHARD_COUNT=2 (metrics :9466)' },
  { name: 'data-a', address: `${SUBNET_PREFIX}.21`, runs: 'Redis primary (:6379, password, AOF, min-replicas-to-write 1), Sentinel (:26379), Galera node (:3306, bootstraps)' },
  { name: 'data-b', address: `${SUBNET_PREFIX}.22`, runs: 'Redis replica (:6379), Sentinel (:26379), Galera node (:3306)' },
  { name: 'data-c', address: `${SUBNET_PREFIX}.23`, runs: "Redis replica (:6379), Sentinel (:26379), Galera node (:3306): the balancer's first choice of writer" },
  { name: 'sandbox', address: `${SUBNET_PREFIX}.30`, runs: 'presence-link sandbox (:8090): the fake Discord (2 shards) and Roblox users API' },
]

/** Source addresses of the simulated game servers (on the bridge, in the root namespace). */
export const CLIENT_ADDRESSES: readonly string[] = Array.from({ length: 12 }, (_, i) => `${SUBNET_PREFIX}.${101 + i}`)

/** The host of that name. */
export function hostOf(name: HostName): HostSpec {
  const host = HOSTS.find((h) => h.name === name)
  if (host === undefined) throw new Error(`no host ${name}`)
  return host
}

/** The namespace of a host. */
export function namespaceOf(name: HostName): string {
  return `${NAME_PREFIX}${name}`
}

/** The root-side end of a host's veth pair, on the bridge (at most 13 characters; Linux allows 15). */
export function bridgePortOf(name: HostName): string {
  return `${NAME_PREFIX}${name}`
}

/** The `/etc/hosts` every host sees (`ip netns exec` mounts /etc/netns/NS/hosts over /etc/hosts): every host by name. */
export function hostsFile(): string {
  return ['127.0.0.1 localhost', '::1 localhost', ...HOSTS.map((h) => `${h.address} ${h.name}`), ''].join('\n')
}
