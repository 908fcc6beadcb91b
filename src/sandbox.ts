/**
 * Entry point: the local fake of Discord and the Roblox users API (`presence-link sandbox`), until SIGINT or SIGTERM.
 * It listens on 127.0.0.1 unless `--host` says otherwise (`serve` never does: nothing outside the machine may drive a
 * fake Discord). A taken port exits 98 with one line, as every part does (lib/listen-port.ts).
 */
import { pathToFileURL } from 'node:url'
import { SANDBOX_COMMAND } from './cli/command-table.js'
import { parseCommandLine } from './cli/dispatch.js'
import { isAddressInUse, PORT_TAKEN_EXIT, portTakenMessage, type TakenPort } from './lib/listen-port.js'
import { announceStarted, reportPortTaken } from './lib/part-started.js'
import { createSandbox } from './sandbox/create-sandbox.js'

/** The sandbox's address when `--host` is not given. */
const DEFAULT_HOST = '127.0.0.1'

/** Runs the sandbox until SIGINT or SIGTERM; prints one JSON line per event. */
export async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseCommandLine(SANDBOX_COMMAND.name, SANDBOX_COMMAND, argv)
  if (parsed.kind === 'print') {
    const { lines, exitCode } = parsed.output
    const stream = exitCode === 0 ? process.stdout : process.stderr
    stream.write(`${lines.join('\n')}\n`)
    process.exitCode = exitCode
    return
  }
  const args = parsed.args.flags
  const line = (msg: string, fields?: object): void => console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }))
  const host = args.host ?? DEFAULT_HOST
  let sandbox: Awaited<ReturnType<typeof createSandbox>>
  try {
    sandbox = await createSandbox({
      port: args.port,
      shardCount: args.shards,
      log: line,
      host,
      ...(args.token === undefined ? {} : { botToken: args.token }),
      ...(args.guild === undefined ? {} : { whitelistedGuildId: args.guild }),
    })
  } catch (err) {
    if (!isAddressInUse(err)) throw err
    // Under serve (an IPC channel) the port comes from SANDBOX_PORT.
    const taken: TakenPort = { port: args.port, host, variable: process.channel === undefined ? '--port' : 'SANDBOX_PORT' }
    line(`sandbox cannot start: ${portTakenMessage(taken)}`, { ...taken })
    await reportPortTaken(taken)
    process.exit(PORT_TAKEN_EXIT)
  }
  line('sandbox ready', {
    host,
    url: sandbox.url,
    apiBase: sandbox.apiBase,
    robloxBase: sandbox.robloxBase,
    gatewayUrl: sandbox.gatewayUrl,
    defaultGuildId: sandbox.defaultGuildId,
    shards: args.shards,
  })
  announceStarted()
  const stop = (signal: string): void => {
    line('sandbox stopping', { signal })
    void sandbox.close().then(() => process.exit(0))
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
  // Started by `serve` (an IPC channel): when serve dies, so does the sandbox.
  if (process.channel !== undefined) {
    process.channel.unref()
    process.once('disconnect', () => stop('parent gone'))
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2))
}
