/**
 * `presence-link migrate` when MySQL closes its first connections (`Connection lost: The server closed the
 * connection`, as a Galera node does right after the cluster forms): it tries again and migrates, where it used to
 * fail at once. A refused login still fails at once.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { MIGRATIONS } from '../../src/mysql/migrate.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { createLogger } from '../../src/lib/logger.js'
import { dropEverything, testConfig, uniqueName } from '../helpers/stack.js'
import { createDatabase } from '../../src/mysql/connection.js'

/** A MariaDB in front of the real one that closes its first `drops` connections as soon as they arrive. */
async function flakyMysql(t: Tap, drops: number): Promise<{ port: number; dropped: () => number }> {
  let dropped = 0
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    if (dropped < drops) {
      dropped += 1
      client.destroy()
      return
    }
    const upstream = connect(3306, '127.0.0.1')
    sockets.add(client).add(upstream)
    client.pipe(upstream).pipe(client)
    const end = () => (client.destroy(), upstream.destroy())
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { port: (server.address() as AddressInfo).port, dropped: () => dropped }
}

type Tap = Pick<typeof t, 'teardown'>

t.test('the first two connections closed by the server: migrate tries again and migrates', async (t) => {
  const flaky = await flakyMysql(t, 2)
  const name = uniqueName()
  const config = testConfig(name, { DATABASE_URL: `mysql://root@127.0.0.1:${flaky.port}/pl_${name}` })
  t.teardown(() => dropEverything(testConfig(name), name))
  const ctx = createProcessContext('cli', config, createLogger('cli', 'silent'))
  t.teardown(() => ctx.shutdown.run('done'))
  const out = await runCommand(ctx, ['migrate'])
  t.same(out, { lines: ['migrated: up to date'], exitCode: 0 })
  t.equal(flaky.dropped(), 2, 'both lost connections were met')
  const db = createDatabase(testConfig(name).databaseUrl, 1)
  t.teardown(() => db.destroy())
  const done = await db.selectFrom('schema_migrations' as never).select('name' as never).execute()
  t.same(done.map((r) => (r as { name: string }).name).sort(), Object.keys(MIGRATIONS).sort(), 'every migration ran')
})

t.test('a refused login is not retried: it fails at once with the server\'s reason', async (t) => {
  const name = uniqueName()
  const config = testConfig(name, { DATABASE_URL: `mysql://no_such_user_pl:wrong@127.0.0.1:3306/pl_${name}` })
  const ctx = createProcessContext('cli', config, createLogger('cli', 'silent'))
  t.teardown(() => ctx.shutdown.run('done'))
  await t.rejects(runCommand(ctx, ['migrate']), /Access denied for user 'no_such_user_pl'/)
})
