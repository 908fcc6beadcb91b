/** `presence-link version`: the release (package.json's version), the commit, Node and this release's newest migration. */
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { newestMigration } from '../../src/cli/version-command.js'
import { buildInfo } from '../../src/metrics/build-info.js'
import { MIGRATIONS } from '../../src/mysql/migrate.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { createLogger } from '../../src/lib/logger.js'
import { testConfig, uniqueName } from '../helpers/stack.js'

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

t.test('prints the version build_info reports, the commit, Node and the newest migration; touches no storage', async (t) => {
  // A MySQL and Redis nobody listens on: the command must not need them.
  const config = testConfig(uniqueName(), { DATABASE_URL: 'mysql://root@127.0.0.1:1/pl_none', REDIS_URL: 'redis://127.0.0.1:1' })
  const ctx = createProcessContext('cli', config, createLogger('cli', 'silent'))
  t.teardown(() => ctx.shutdown.run('done'))
  const out = await runCommand(ctx, ['version'])
  t.equal(manifest.version, '0.2.0')
  t.same(out, {
    lines: [
      `presence-link ${manifest.version}`,
      `commit ${buildInfo().commit}`,
      `node ${process.version}`,
      `schema ${Object.keys(MIGRATIONS).at(-1)} (the newest migration of this release; \`presence-link migrate\` applies it)`,
    ],
    exitCode: 0,
  })
  t.equal(buildInfo().version, manifest.version, 'the version of presence_link_build_info')
  // The newest file of src/mysql/migrations/, read apart from the list the command reads.
  const files = readdirSync(new URL('../../src/mysql/migrations/', import.meta.url)).filter((f) => /^\d{4}-.*\.ts$/.test(f)).sort()
  t.equal(newestMigration(), files.at(-1)!.replace(/\.ts$/, ''), 'the newest migration file')
})
