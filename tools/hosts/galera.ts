/**
 * The MariaDB Galera cluster of `npm run hosts`: one node on each data host (data-a, data-b, data-c), each with its own
 * data directory, started inside its host's namespace. data-a bootstraps the cluster (`--wsrep-new-cluster`); data-b
 * and data-c then join one at a time and receive a full copy by rsync (SST). The parts reach the cluster through the
 * balancer (haproxy/haproxy.cfg, `listen mysql`), which sends every connection to one Synced node at a time.
 *
 * The harness can also ask each node directly (over its socket, as root) what it holds, so a scenario can show that
 * every node has every committed row after a cut.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { privateMariadb, type PrivateServer } from '../harness/private-infra.js'
import { sleep } from '../harness/readiness.js'
import { inHost } from './netns.js'
import { DATA_HOSTS, hostOf, SUBNET_PREFIX, type DataHost } from './topology.js'

/** The Galera provider Debian's galera-4 package installs. */
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'

/** A node's wsrep state as SHOW STATUS reports it. */
export interface NodeState {
  /** `Primary` (in the component that holds quorum), `non-Primary` or `Disconnected`; `unreachable` when no answer. */
  clusterStatus: string
  /** `Synced`, `Joining`, `Donor/Desynced`, `Joined`, `Initialized`... */
  localState: string
  /** Members of the node's component. */
  clusterSize: number
}

/** The running cluster. */
export interface GaleraCluster {
  nodes: ReadonlyMap<DataHost, PrivateServer>
  /** Runs SQL as root on one node over its socket; the rows tab-separated, one a line. Throws on failure. */
  query(host: DataHost, statement: string): string
  /** The node's wsrep state (never throws). */
  state(host: DataHost): NodeState
  /** Stops every node (SIGTERM, then what is left is killed by the harness's exit handler). */
  stop(): Promise<void>
}

/** The server options that make a node of this cluster (Galera's required settings: ROW binlog, interleaved autoinc). */
export function galeraArgs(host: DataHost, bootstrap: boolean): string[] {
  return [
    '--wsrep-on=ON',
    `--wsrep-provider=${GALERA_PROVIDER}`,
    '--wsrep-cluster-name=presence-link',
    `--wsrep-cluster-address=gcomm://${DATA_HOSTS.join(',')}`,
    `--wsrep-node-address=${hostOf(host).address}`,
    `--wsrep-node-name=${host}`,
    '--wsrep-sst-method=rsync',
    '--wsrep-provider-options=gcache.size=64M',
    '--binlog-format=ROW',
    '--innodb-autoinc-lock-mode=2',
    '--default-storage-engine=InnoDB',
    // Refuse what Galera cannot replicate (a table without a primary key, DDL on another engine) instead of diverging.
    '--wsrep-mode=REQUIRED_PRIMARY_KEY,STRICT_REPLICATION',
    ...(bootstrap ? ['--wsrep-new-cluster'] : []),
  ]
}

/** The last lines of a node's error log (where MariaDB and the SST script write), for error messages. */
function errorLogTail(nodeDir: string): string {
  try {
    return readFileSync(join(nodeDir, 'error.log'), 'utf8').trim().split('\n').filter((l) => /ERROR|SST|rsync/i.test(l)).slice(-15).join('\n')
  } catch {
    return '(no error log)'
  }
}

/** Gives a node's directory to `user` and lets it reach the directory through its parents (made 0700 by mkdtemp). */
function chownSync(nodeDir: string, user: string): void {
  const res = spawnSync('chown', ['-R', `${user}:${user}`, nodeDir], { encoding: 'utf8' })
  if (res.status !== 0) throw new Error(`chown ${nodeDir} failed: ${res.stderr}`)
  for (let d = dirname(nodeDir); d !== '/' && d !== '/tmp' && d.startsWith('/tmp/'); d = dirname(d)) chmodSync(d, 0o711)
}

/** Starts the three nodes and waits for each to be Synced; creates the service user and the balancer's check user. */
export async function startGalera(dir: string, dbPassword: string, log: (message: string) => void): Promise<GaleraCluster> {
  const nodes = new Map<DataHost, PrivateServer>()
  const socketOf = (host: DataHost) => join(dir, host, 'mysqld.sock')
  const query = (host: DataHost, statement: string): string => {
    const res = spawnSync('mysql', ['--no-defaults', '-uroot', `--socket=${socketOf(host)}`, '-N', '-B', '-e', statement], { encoding: 'utf8', timeout: 30_000 })
    if (res.status !== 0) throw new Error(`mysql on ${host} failed: ${res.stderr ?? res.error?.message}`)
    return res.stdout.trim()
  }
  const state = (host: DataHost): NodeState => {
    try {
      const rows = query(host, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_cluster_status', 'wsrep_local_state_comment', 'wsrep_cluster_size')")
      const value = (name: string) => rows.split('\n').find((line) => line.startsWith(`${name}\t`))?.split('\t')[1] ?? ''
      return { clusterStatus: value('wsrep_cluster_status'), localState: value('wsrep_local_state_comment'), clusterSize: Number(value('wsrep_cluster_size')) }
    } catch {
      return { clusterStatus: 'unreachable', localState: 'unreachable', clusterSize: 0 }
    }
  }
  for (const [i, host] of DATA_HOSTS.entries()) {
    const server = await privateMariadb(join(dir, host), {
      host: hostOf(host).address,
      port: 3306,
      // TMPDIR is the node's own directory: the server (InnoDB's temporary files) and its SST scripts run as `mysql`,
      // which cannot write the caller's TMPDIR when that is a root-only mkdtemp (as in CI).
      launch: (file, args) => inHost(host, 'env', [`TMPDIR=${join(dir, host)}`, file, ...args]),
      // As `mysql`, not root: the joiner's rsync daemon (the SST) runs as its server's user, and as root it would
      // switch to `nobody`, which may not write the data directory.
      serverArgs: [...galeraArgs(host, i === 0), '--user=mysql'],
    })
    chownSync(join(dir, host), 'mysql')
    nodes.set(host, server)
    await server.start().catch((err: Error) => {
      const logs = [...nodes.keys()].map((h) => `${h}'s error log:\n${errorLogTail(join(dir, h))}`)
      throw new Error(`${err.message}\n${logs.join('\n')}`)
    })
    const until = Date.now() + 120_000
    for (;;) {
      const s = state(host)
      if (s.clusterStatus === 'Primary' && s.localState === 'Synced' && s.clusterSize === i + 1) break
      if (Date.now() > until) throw new Error(`Galera node ${host} was not Synced within 120 s (${JSON.stringify(s)}):\n${errorLogTail(join(dir, host))}`)
      await sleep(200)
    }
    log(`galera: ${host} Synced, cluster of ${i + 1}`)
  }
  // Users and grants are replicated to every node (account statements run on the whole cluster).
  const subnet = `${SUBNET_PREFIX}.%`
  query(
    'data-a',
    `CREATE DATABASE IF NOT EXISTS presence_link; CREATE USER 'presence'@'${subnet}' IDENTIFIED BY '${dbPassword}'; ` +
      `GRANT ALL PRIVILEGES ON presence_link.* TO 'presence'@'${subnet}'; CREATE USER 'haproxy_check'@'${hostOf('lb').address}';`,
  )
  return {
    nodes,
    query,
    state,
    async stop() {
      await Promise.all([...nodes.values()].map((n) => n.kill('SIGTERM')))
    },
  }
}
