/**
 * A one-node MariaDB Galera cluster for tests (wsrep on, bootstrapped on its own, on free loopback ports, in a temporary
 * directory): what a Galera node refuses, and what haproxy/galera-check.sh reads, are the real server's. Also strict the
 * way tools/hosts/galera.ts runs the test hosts (`wsrep_mode` REQUIRED_PRIMARY_KEY and STRICT_REPLICATION).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateMariadb } from '../../tools/harness/private-infra.js'
import { GALERA_PROVIDER } from '../../tools/hosts/galera.js'
import { freePort } from './scratch.js'

/** The running node. */
export interface GaleraNode {
  port: number
  /** `mysql://pl:…@127.0.0.1:PORT/NAME`: a user with every privilege, over TCP. */
  url(database: string): string
  /** Runs SQL as root over the socket; the rows tab-separated. Throws on failure. */
  query(statement: string): string
}

interface Teardown {
  teardown(fn: () => unknown): void
}

/** Starts the node, waits until it is Synced, and creates the `pl` user and `haproxy_check`@127.0.0.1. */
export async function galeraNode(t: Teardown): Promise<GaleraNode> {
  const dir = mkdtempSync(join(tmpdir(), 'pl-galera-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const [port, groupPort] = [await freePort(), await freePort()]
  const server = await privateMariadb(dir, {
    host: '127.0.0.1',
    port,
    serverArgs: [
      '--wsrep-on=ON', `--wsrep-provider=${GALERA_PROVIDER}`, '--wsrep-cluster-address=gcomm://', '--wsrep-new-cluster',
      '--wsrep-node-address=127.0.0.1', `--wsrep-provider-options=base_port=${groupPort};gcache.size=16M`,
      '--binlog-format=ROW', '--innodb-autoinc-lock-mode=2', '--wsrep-mode=REQUIRED_PRIMARY_KEY,STRICT_REPLICATION',
    ],
  })
  t.teardown(() => server.kill('SIGTERM'))
  await server.start()
  const query = (statement: string): string => {
    const res = spawnSync('mysql', ['--no-defaults', '-uroot', `--socket=${join(dir, 'mysqld.sock')}`, '-N', '-B', '-e', statement], { encoding: 'utf8', timeout: 30_000 })
    if (res.status !== 0) throw new Error(res.stderr)
    return res.stdout.trim()
  }
  const until = Date.now() + 60_000
  while (query("SHOW STATUS LIKE 'wsrep_local_state_comment'").split('\t')[1] !== 'Synced') {
    if (Date.now() > until) throw new Error('the Galera node was not Synced within 60 s')
    await new Promise((r) => setTimeout(r, 200))
  }
  query("CREATE USER 'pl'@'127.0.0.1' IDENTIFIED BY 'pl-test'; GRANT ALL PRIVILEGES ON *.* TO 'pl'@'127.0.0.1'; CREATE USER 'haproxy_check'@'127.0.0.1';")
  return { port, url: (database) => `mysql://pl:pl-test@127.0.0.1:${port}/${database}`, query }
}
