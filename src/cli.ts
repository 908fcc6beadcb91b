#!/usr/bin/env node
/**
 * Entry point: the `presence-link` command. Process commands hand over to their entry file (so `node:cluster`
 * forks and argument parsing see that file as the program); admin commands run here and exit.
 */
import { fileURLToPath } from 'node:url'
import { loadConfig } from './config.js'
import { codesCommand, guildsCommand, keysCommand, migrateCommand, usage, type CommandOutput } from './cli/admin-commands.js'
import { destinationsCommand, logsCommand, watchlistCommand } from './cli/delivery-commands.js'
import { createLogger } from './lib/logger.js'
import { createProcessContext } from './runtime/process-context.js'

const HELP = `presence-link: link Discord users to Roblox accounts, serve their live activity, keep logs

Processes:
  presence-link serve              everything: front cluster, workers, gateway (and the sandbox without DISCORD_TOKEN)
  presence-link front              the HTTP front (node:cluster, FRONT_WORKERS processes on PORT)
  presence-link worker [bind|log|audit|delivery]  queue consumers and delivery to Discord (all when none named)
  presence-link gateway            the Discord gateway for SHARD_IDS of SHARD_COUNT
  presence-link sandbox [--port N] [--shards N]  the local fake of Discord and the Roblox users API

Administration (each prints its result as the last line):
  presence-link migrate
  presence-link keys create --name NAME | keys list | keys revoke NAME
  presence-link codes issue --chat-user ID | codes show CODE | codes rotate --chat-user ID
  presence-link codes ban|unban|pause|resume|reset|revoke CODE
  presence-link guilds add ID | guilds remove ID | guilds list
  presence-link destinations set CATEGORY TARGET | unset CATEGORY | list | retry CATEGORY
  presence-link logs replay --category CATEGORY --since ISO_TIME
  presence-link watchlist add ROBLOX_USER_ID [--reason TEXT] | remove ROBLOX_USER_ID | list
`

/** Process commands and the entry file each one runs. */
const PROCESS_ENTRIES: Record<string, string> = {
  serve: './serve.js',
  front: './front.js',
  worker: '../workers/worker.js',
  gateway: './gateway.js',
  sandbox: './sandbox.js',
}

const [command = 'help', ...args] = process.argv.slice(2)

const entry = PROCESS_ENTRIES[command]
if (entry !== undefined) {
  const url = new URL(entry, import.meta.url)
  process.argv = [process.argv[0]!, fileURLToPath(url), ...args]
  await import(url.href)
} else if (command === 'help' || command === '--help' || command === '-h') {
  process.stdout.write(HELP)
} else {
  const config = loadConfig()
  const ctx = createProcessContext('cli', config, createLogger('cli', config.logLevel === 'info' ? 'warn' : config.logLevel))
  let out: CommandOutput
  try {
    if (command === 'migrate') out = await migrateCommand(ctx)
    else if (command === 'keys') out = await keysCommand(ctx, args)
    else if (command === 'codes') out = await codesCommand(ctx, args)
    else if (command === 'guilds') out = await guildsCommand(ctx, args)
    else if (command === 'destinations') out = await destinationsCommand(ctx, args)
    else if (command === 'logs') out = await logsCommand(ctx, args)
    else if (command === 'watchlist') out = await watchlistCommand(ctx, args)
    else out = usage(`unknown command ${command}`)
  } catch (err) {
    out = { lines: [`error: ${(err as Error).message}`], exitCode: 1 }
  }
  await ctx.shutdown.run('done')
  const stream = out.exitCode === 0 ? process.stdout : process.stderr
  stream.write(`${out.lines.join('\n')}\n`)
  process.exitCode = out.exitCode
}
