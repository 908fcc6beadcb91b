/**
 * haproxy/galera-check.sh, the database balancer's health check, against a real Galera node: up (exit 0) only while the
 * node is Synced in the Primary component; a node that accepts logins but is desynced, and a port nothing listens
 * on, are down (exit 1).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { galeraNode } from '../helpers/galera-node.js'
import { freePort } from '../helpers/scratch.js'

const CHECK = join(fileURLToPath(new URL('../../', import.meta.url)), 'haproxy', 'galera-check.sh')

/** Runs the check as HAProxy does: proxy address and port, then the server's. */
function check(port: number): number | null {
  return spawnSync(CHECK, ['0.0.0.0', '3306', '127.0.0.1', String(port)], { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }).status
}

t.test('up while Synced and Primary, down while desynced or unreachable', async (t) => {
  const node = await galeraNode(t)
  t.equal(check(node.port), 0, 'a Synced node in the Primary component is up')
  node.query('SET GLOBAL wsrep_desync = ON')
  t.equal(node.query("SHOW STATUS LIKE 'wsrep_local_state_comment'"), 'wsrep_local_state_comment\tDonor/Desynced')
  t.equal(check(node.port), 1, 'a desynced node (accepting logins) is down')
  node.query('SET GLOBAL wsrep_desync = OFF')
  t.equal(check(node.port), 0, 'and up again once Synced')
  t.equal(check(await freePort()), 1, 'nothing listening: down')
})
