#!/usr/bin/env node
/**
 * Entry point: the `presence-link` command. The command table (src/cli/command-table.ts) decides what a command line
 * means. Process commands hand over to their entry file (so `node:cluster` forks and argument parsing see that file
 * as the program); administration commands run here and exit. Help, the version and refused command lines load
 * neither the configuration nor any storage.
 */
import { fileURLToPath } from 'node:url'
import type { CommandOutput } from './cli/command.js'
import { resolveCommand, runResolved } from './cli/dispatch.js'
import { readPackageVersion } from './cli/package-version.js'

/** Prints a command's output (stdout, or stderr when it failed); resolves once written. */
function write({ lines, exitCode }: CommandOutput): Promise<void> {
  const stream = exitCode === 0 ? process.stdout : process.stderr
  process.exitCode = exitCode
  return new Promise((resolve) => stream.write(`${lines.join('\n')}\n`, () => resolve()))
}

const resolved = resolveCommand(process.argv.slice(2))

if (resolved.kind === 'print') {
  await write(resolved.output)
} else if (resolved.kind === 'version') {
  await write({ lines: [readPackageVersion()], exitCode: 0 })
} else if (resolved.kind === 'process') {
  const { entry } = resolved.command
  process.argv = [process.argv[0]!, fileURLToPath(entry), ...resolved.argv]
  await import(entry.href)
} else {
  const [{ loadConfig }, { createLogger }, { createProcessContext }, { commandErrorLine }] = await Promise.all([
    import('./config.js'),
    import('./lib/logger.js'),
    import('./runtime/process-context.js'),
    import('./cli/model/connection-error.js'),
  ])
  const config = loadConfig()
  // Logs go to stderr: stdout is the command's result, read by scripts (`KEY=$(presence-link keys create ... | tail -1)`).
  const ctx = createProcessContext('cli', config, createLogger('cli', config.logLevel === 'info' ? 'warn' : config.logLevel, 2))
  let out: CommandOutput
  try {
    out = await runResolved(ctx, resolved)
  } catch (err) {
    out = { lines: [commandErrorLine(err)], exitCode: 1 }
  }
  await ctx.shutdown.run('done')
  await write(out)
  // Everything was closed above; what may still hold the event loop is a library's leftover timer (ioredis waits
  // 2 s on the socket of a connection that never opened), and the command is over.
  process.exit()
}
