import { pathToFileURL } from 'node:url'
import { createSandbox } from './sandbox/create-sandbox.js'

const USAGE = 'usage: sandbox [--port N (8090)] [--shards N (1)] [--host H] [--token T] [--guild ID]'

interface Args {
  port: number
  shards: number
  host?: string
  token?: string
  guild?: string
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { port: 8090, shards: 1 }
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]
    const value = argv[i + 1]
    if (value === undefined) return `missing value for ${String(flag)}`
    if (flag === '--port' || flag === '--shards') {
      const n = Number(value)
      if (!Number.isInteger(n) || n < (flag === '--port' ? 0 : 1)) return `bad number for ${flag}: ${value}`
      if (flag === '--port') args.port = n
      else args.shards = n
    } else if (flag === '--host') args.host = value
    else if (flag === '--token') args.token = value
    else if (flag === '--guild') args.guild = value
    else return `unknown flag ${String(flag)}`
  }
  return args
}

/** Runs the sandbox until SIGINT or SIGTERM; prints one JSON line per event. */
export async function main(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    console.error(`${args}\n${USAGE}`)
    process.exitCode = 2
    return
  }
  const line = (msg: string, fields?: object): void => console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }))
  const sandbox = await createSandbox({
    port: args.port,
    shardCount: args.shards,
    log: line,
    ...(args.host === undefined ? {} : { host: args.host }),
    ...(args.token === undefined ? {} : { botToken: args.token }),
    ...(args.guild === undefined ? {} : { whitelistedGuildId: args.guild }),
  })
  line('sandbox ready', {
    url: sandbox.url,
    apiBase: sandbox.apiBase,
    robloxBase: sandbox.robloxBase,
    gatewayUrl: sandbox.gatewayUrl,
    defaultGuildId: sandbox.defaultGuildId,
    shards: args.shards,
  })
  const stop = (signal: string): void => {
    line('sandbox stopping', { signal })
    void sandbox.close().then(() => process.exit(0))
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main(process.argv.slice(2))
}
