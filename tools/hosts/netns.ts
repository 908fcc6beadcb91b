/**
 * Makes the test hosts of tools/hosts/topology.ts real: one network namespace per host, each joined to a bridge in
 * the root namespace by a veth pair, with its own address, loopback and /etc/hosts. A host is cut off by taking its
 * end of the link down: nothing is closed, its sockets stay open on both sides and packets are simply lost, as when
 * a machine or its switch port dies; a host can also be partitioned from some others only (iptables in its namespace).
 * Needs root and iproute2 (`ip netns`, veth, bridge), and iptables for partitions.
 *
 * Everything made here is named with NAME_PREFIX, so `removeHostsSync` also clears what a crashed run left behind.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  BRIDGE,
  BRIDGE_ADDRESS,
  bridgePortOf,
  CLIENT_ADDRESSES,
  hostOf,
  HOSTS,
  hostsFile,
  NAME_PREFIX,
  namespaceOf,
  SUBNET_BITS,
  type HostName,
} from './topology.js'

const NETNS_ETC = '/etc/netns'

function run(file: string, args: readonly string[], allowFailure = false): { ok: boolean; out: string } {
  const res = spawnSync(file, [...args], { encoding: 'utf8', timeout: 10_000 })
  const ok = res.status === 0
  if (!ok && !allowFailure) throw new Error(`${file} ${args.join(' ')} failed (${res.status ?? res.signal ?? res.error?.message}): ${res.stderr ?? ''}`)
  return { ok, out: res.stdout ?? '' }
}

const ip = (...args: string[]) => run('ip', args)

/** Why hosts cannot be made here, or null when they can (root, iproute2, and a namespace can be created). */
export function hostsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'network namespaces need root (run as root, as CI does)'
  if (!run('ip', ['-V'], true).ok) return 'iproute2 (`ip`) is not installed'
  const probe = `${NAME_PREFIX}probe`
  run('ip', ['netns', 'del', probe], true)
  const made = run('ip', ['netns', 'add', probe], true)
  if (!made.ok) return 'this machine does not allow creating network namespaces (`ip netns add` failed)'
  const veth = run('ip', ['link', 'add', `${NAME_PREFIX}probe0`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', probe], true)
  run('ip', ['link', 'del', `${NAME_PREFIX}probe0`], true)
  run('ip', ['netns', 'del', probe], true)
  return veth.ok ? null : 'this machine does not allow veth pairs (`ip link add ... type veth` failed)'
}

/** Creates the bridge, every host and the client addresses; removes leftovers of an earlier run first. */
export function createHosts(): void {
  removeHostsSync()
  ip('link', 'add', BRIDGE, 'type', 'bridge')
  ip('addr', 'add', `${BRIDGE_ADDRESS}/${SUBNET_BITS}`, 'dev', BRIDGE)
  for (const address of CLIENT_ADDRESSES) ip('addr', 'add', `${address}/${SUBNET_BITS}`, 'dev', BRIDGE)
  ip('link', 'set', BRIDGE, 'up')
  for (const host of HOSTS) {
    const ns = namespaceOf(host.name)
    ip('netns', 'add', ns)
    ip('link', 'add', bridgePortOf(host.name), 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns)
    ip('link', 'set', bridgePortOf(host.name), 'master', BRIDGE, 'up')
    ip('-n', ns, 'addr', 'add', `${host.address}/${SUBNET_BITS}`, 'dev', 'eth0')
    ip('-n', ns, 'link', 'set', 'lo', 'up')
    ip('-n', ns, 'link', 'set', 'eth0', 'up')
    mkdirSync(join(NETNS_ETC, ns), { recursive: true })
    writeFileSync(join(NETNS_ETC, ns, 'hosts'), hostsFile())
  }
}

/** Takes the host's link down: its packets are lost from now on, and nothing it has open is closed. */
export function cutHost(name: HostName): void {
  ip('-n', namespaceOf(name), 'link', 'set', 'eth0', 'down')
}

/** Brings the host's link back up (its address and routes come back with it). */
export function restoreHost(name: HostName): void {
  ip('-n', namespaceOf(name), 'link', 'set', 'eth0', 'up')
}

/**
 * Partitions `name` from `others`: its namespace drops every packet to or from their addresses (iptables, so nothing
 * is refused or closed: packets are lost, as across a broken switch), while every other host still reaches it.
 */
export function partitionHost(name: HostName, others: readonly HostName[]): void {
  const ns = namespaceOf(name)
  for (const other of others) {
    const address = hostOf(other).address
    run('ip', ['netns', 'exec', ns, 'iptables', '-A', 'INPUT', '-s', address, '-j', 'DROP'])
    run('ip', ['netns', 'exec', ns, 'iptables', '-A', 'OUTPUT', '-d', address, '-j', 'DROP'])
  }
}

/** Ends every partition of `name` (flushes its namespace's rules). */
export function healHost(name: HostName): void {
  run('ip', ['netns', 'exec', namespaceOf(name), 'iptables', '-F'], true)
}

/** `file args...` run inside the host's namespace (`ip netns exec` also mounts the host's /etc/hosts). */
export function inHost(name: HostName, file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: 'ip', args: ['netns', 'exec', namespaceOf(name), file, ...args] }
}

/** Kills whatever still runs in the hosts, deletes them, the bridge and their hosts files; synchronous, for exit. */
export function removeHostsSync(): void {
  const listed = run('ip', ['netns', 'list'], true).out
  const namespaces = listed
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((ns) => ns.startsWith(NAME_PREFIX))
  for (const ns of namespaces) {
    const pids = run('ip', ['netns', 'pids', ns], true).out.split(/\s+/).filter((p) => p !== '')
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  for (const ns of namespaces) run('ip', ['netns', 'del', ns], true)
  for (const host of HOSTS) run('ip', ['link', 'del', bridgePortOf(host.name)], true)
  run('ip', ['link', 'del', BRIDGE], true)
  let leftovers: string[] = []
  try {
    leftovers = readdirSync(NETNS_ETC).filter((d) => d.startsWith(NAME_PREFIX))
  } catch {
    // no /etc/netns
  }
  for (const dir of leftovers) rmSync(join(NETNS_ETC, dir), { recursive: true, force: true })
}
