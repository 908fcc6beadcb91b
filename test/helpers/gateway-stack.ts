/** The whole service against the Discord sandbox: sandbox, front, workers and the real gateway (discord.js). */
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js'
import { startGateway, type GatewayMetricsFactory, type GatewayRuntime } from '../../src/runtime/gateway-runtime.js'
import { createLogger, type Logger } from '../../src/lib/logger.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { eventually, getText, postJson, startStack, type Stack, type Teardown } from './stack.js'

/** A running service plus its sandbox. */
export interface GatewayStack {
  stack: Stack
  sandbox: Sandbox
  gateway: GatewayRuntime
  gatewayCtx: ProcessContext
  staffRoleId: string
  /** Calls the sandbox control API; throws on a non-2xx answer. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>
  /** Adds a member and runs /code for them; returns the code. */
  codeFor(userId: string, username: string, guildId?: string): Promise<string>
  /** Binds a code over HTTP. */
  bind(code: string, username: string, id: number): Promise<{ status: number; body: any }>
  /** Polls callbacks for `code` until `accept` holds; returns the text. */
  callbacksUntil(code: string, accept: (text: string) => boolean, what?: string): Promise<string>
  /** Adds member `user`, runs /code for them and binds the code to a Roblox account; throws unless the bind gives 200. */
  linkedUser(user: string, username: string, robloxName: string, robloxId: number): Promise<{ user: string; code: string }>
}

/** Starts everything for one test file. */
export async function startGatewayStack(
  t: Teardown,
  opts: {
    shards?: number
    env?: Record<string, string>
    /** More of the stack's environment, from the sandbox (its URLs). */
    envOf?: (sandbox: Sandbox) => Record<string, string>
    metrics?: GatewayMetricsFactory
    /** Runs against the sandbox before the gateway starts (guilds the bot finds at login). */
    beforeGateway?: (sandbox: Sandbox) => Promise<void>
    /** The gateway's logger (by default one at the stack's level). */
    log?: Logger
  } = {},
): Promise<GatewayStack> {
  const shards = opts.shards ?? 1
  const sandbox = await createSandbox({ port: 0, shardCount: shards })
  t.teardown(() => sandbox.close())
  const state = (await (await fetch(`${sandbox.url}/control/state`)).json()) as { staffRoleId: string }
  const env = {
    RATE_LIMITS: 'off',
    DISCORD_TOKEN: 'sandbox-token',
    DISCORD_API: sandbox.apiBase,
    ROBLOX_USERS_API: sandbox.robloxBase,
    GUILD_WHITELIST: sandbox.defaultGuildId,
    STAFF_GUILD_IDS: sandbox.defaultGuildId,
    STAFF_ROLE_ID: state.staffRoleId,
    MESSAGE_CONTENT: 'on',
    SHARD_COUNT: String(shards),
    ...opts.env,
    ...opts.envOf?.(sandbox),
  }
  const stack = await startStack(t, { env })
  await opts.beforeGateway?.(sandbox)
  const gatewayCtx = createProcessContext('gateway', stack.config, opts.log ?? createLogger('gateway', stack.config.logLevel))
  t.teardown(() => gatewayCtx.shutdown.run('test done'))
  const gateway = await startGateway(gatewayCtx, opts.metrics)

  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${sandbox.url}/control/${path}`, {
      method,
      // The control API refuses anything but JSON on non-GET requests, even without a body.
    ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' } }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${text}`)
    return (text === '' ? undefined : JSON.parse(text)) as T
  }
  const g: GatewayStack = {
    stack,
    sandbox,
    gateway,
    gatewayCtx,
    staffRoleId: state.staffRoleId,
    control,
    async codeFor(userId, username, guildId) {
      await control('POST', 'members', { id: userId, username, ...(guildId === undefined ? {} : { guild_id: guildId }) })
      const reply = await control<{ content: string }>('POST', 'commands', { user_id: userId, name: 'code', ...(guildId === undefined ? {} : { guild_id: guildId }) })
      const code = /\*\*([A-Z0-9]{4})\*\*/.exec(reply.content)?.[1]
      if (code === undefined) throw new Error(`no code in reply: ${reply.content}`)
      return code
    },
    bind: (code, username, id) => postJson(`${stack.api}/bind`, { code, platform_username: username, platform_user_id: id }, `Bearer ${stack.apiKey}`),
    callbacksUntil: (code, accept, what = 'callbacks') =>
      eventually(async () => {
        const { text } = await getText(`${stack.api}/callbacks/${code}`)
        return accept(text) ? text : undefined
      }, 10_000, what),
    async linkedUser(user, username, robloxName, robloxId) {
      const code = await g.codeFor(user, username)
      const bound = await g.bind(code, robloxName, robloxId)
      if (bound.status !== 200) throw new Error(`bind gave ${bound.status}`)
      return { user, code }
    },
  }
  return g
}
