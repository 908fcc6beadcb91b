import t from 'tap'
import { EXIT_BAD_COMMAND_LINE } from '../../src/cli/command.js'
import { inProcess, jobsCommand, keysCommand } from '../../src/cli/in-process.js'
import { parseConfig } from '../../src/config.js'
import { createLogger } from '../../src/lib/logger.js'
import { createProcessContext } from '../../src/runtime/process-context.js'

// Nothing here opens a connection: help and refusals are answered by the dispatch alone.
const parsed = parseConfig({})
if (!parsed.ok) throw new Error('the default configuration does not parse')
const ctx = createProcessContext('cli', parsed.config, createLogger('cli', 'silent'))

t.test('a group run in this process answers as the command line does', async (t) => {
  const help = await keysCommand(ctx, ['--help'])
  t.equal(help.exitCode, 0)
  t.equal(help.lines[0], 'usage: presence-link keys SUBCOMMAND [ARGUMENTS]')

  const missing = await jobsCommand(ctx, [])
  t.equal(missing.exitCode, EXIT_BAD_COMMAND_LINE)
  t.match(missing.lines[0], /^error: jobs takes /)
})

t.test('an unknown group is refused with the command line hint', async (t) => {
  const out = await inProcess('nope')(ctx, [])
  t.same(out, { lines: ['error: unknown command nope', 'run `presence-link --help` for the commands'], exitCode: EXIT_BAD_COMMAND_LINE })
})
