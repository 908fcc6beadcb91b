/** The operator commands (migrate, keys, codes, guilds): each returns its output lines; the last line is the result. */
import { userInfo } from 'node:os'
import type { CodeService } from '../codes/code-service.js'
import { describeRefusal, isCode, type CodeAction } from '../core/codes.js'
import type { StoredCode } from '../mysql/code-rows.js'
import { createApiKeyRows } from '../mysql/api-key-rows.js'
import { createGuildWhitelistRows } from '../mysql/guild-whitelist-rows.js'
import { createCodeCache } from '../redis/code-cache.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { buildApiKeyService, buildCodeService, buildGuildWhitelist } from '../runtime/services.js'
import { openDatabase, openRedis } from '../runtime/storage.js'

/** Who runs the CLI, for moderation trails: `cli:<login name>`. */
export function operatorName(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli:operator'
  }
}

/** Output of a command: lines to print and the exit status. */
export interface CommandOutput {
  lines: string[]
  exitCode: number
}

/** A usage error. */
export function usage(message: string): CommandOutput {
  return { lines: [`error: ${message}`, 'run `presence-link help` for usage'], exitCode: 64 }
}

function fail(message: string, exitCode = 1): CommandOutput {
  return { lines: [`error: ${message}`], exitCode }
}

/** Reads `--flag value` from args. */
export function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`)
  if (i >= 0) return args[i + 1]
  const eq = args.find((a) => a.startsWith(`--${name}=`))
  return eq?.slice(name.length + 3)
}

/** Describes a code in `key: value` lines. */
export function describeCode(c: StoredCode): string[] {
  return [
    `code: ${c.code}`,
    `state: ${c.state}`,
    `paused: ${c.paused ? 'yes' : 'no'}`,
    `chat user: ${c.chatUserId}`,
    `game account: ${c.platformUserId === null ? '(not linked)' : `${c.platformUsername ?? '?'} (${c.platformUserId})`}`,
    `created: ${c.createdAt.toISOString()}`,
    `linked: ${c.boundAt === null ? '-' : c.boundAt.toISOString()}`,
  ]
}

const SNOWFLAKE = /^\d{1,20}$/
const CODE_ACTIONS: readonly CodeAction[] = ['ban', 'unban', 'pause', 'resume', 'reset', 'revoke']

/** `presence-link migrate`. */
export async function migrateCommand(ctx: ProcessContext): Promise<CommandOutput> {
  await openDatabase(ctx, 1)
  return { lines: ['migrated: up to date'], exitCode: 0 }
}

/** `presence-link keys create --name N | list | revoke N`. */
export async function keysCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  const [sub, ...rest] = args
  const db = await openDatabase(ctx, 2)
  if (sub === 'list') {
    const keys = await createApiKeyRows(db).list()
    if (keys.length === 0) return { lines: ['no API keys'], exitCode: 0 }
    return {
      lines: keys.map((k) => `${k.name}\t${k.id}\tcreated ${k.createdAt.toISOString()}\t${k.revokedAt === null ? 'active' : `revoked ${k.revokedAt.toISOString()}`}`),
      exitCode: 0,
    }
  }
  const redis = await openRedis(ctx, 'request', 'cli')
  if (sub === 'create') {
    const name = flag(rest, 'name')
    if (name === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return usage('keys create needs --name of 1-64 letters, digits, _ . -')
    const created = await buildApiKeyService(db, redis, ctx.keys).create(name)
    if (!created.ok) return fail(`an active key named ${name} exists; revoke it first or pick another name`)
    return { lines: [`created API key ${name} (id ${created.id}); it is shown only once:`, created.key], exitCode: 0 }
  }
  if (sub === 'revoke') {
    const name = rest[0]
    if (name === undefined) return usage('keys revoke needs a NAME')
    return (await buildApiKeyService(db, redis, ctx.keys).revoke(name)) ? { lines: [`revoked ${name}`], exitCode: 0 } : fail(`no active key named ${name}`)
  }
  return usage('keys takes create --name NAME, list, or revoke NAME')
}

async function codeService(ctx: ProcessContext): Promise<CodeService> {
  const db = await openDatabase(ctx, 2)
  // Write-through only: rebuilding the Redis copies is the workers' job (they watch for a lost cache).
  const redis = await openRedis(ctx, 'request', 'cli')
  return buildCodeService(db, createCodeCache(redis, ctx.keys))
}

/** `presence-link codes ...`. */
export async function codesCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  const [sub, ...rest] = args
  const actor = { source: 'cli', name: operatorName() }
  if (sub === 'issue' || sub === 'rotate') {
    const user = flag(rest, 'chat-user')
    if (user === undefined || !SNOWFLAKE.test(user)) return usage(`codes ${sub} needs --chat-user with a Discord user id`)
    const codes = await codeService(ctx)
    if (sub === 'issue') {
      const { code, created } = await codes.issue(user)
      return { lines: [created ? 'issued a new code' : 'the user already has a live code', ...describeCode(code).slice(1), code.code], exitCode: 0 }
    }
    const { previous, code } = await codes.rotate(user, actor)
    return { lines: [previous === undefined ? 'the user had no live code' : `revoked ${previous.code}`, code.code], exitCode: 0 }
  }
  const code = rest[0]
  if (sub === 'show' || (CODE_ACTIONS as readonly string[]).includes(sub ?? '')) {
    if (code === undefined || !isCode(code)) return usage(`codes ${sub} needs a CODE of 4 characters A-Z or 0-9`)
    const codes = await codeService(ctx)
    if (sub === 'show') {
      const found = await codes.show(code)
      return found === undefined ? fail(`no such code ${code}`) : { lines: describeCode(found), exitCode: 0 }
    }
    const result = await codes.act(code, sub as CodeAction, actor)
    if (!result.ok) return fail(`${sub} ${code}: ${describeRefusal(result.reason)}`)
    return { lines: [...describeCode({ ...(await codes.show(code))! })], exitCode: 0 }
  }
  return usage('codes takes issue --chat-user ID, show CODE, ban|unban|pause|resume|reset|revoke CODE, rotate --chat-user ID')
}

/** `presence-link guilds add ID | remove ID | list`. */
export async function guildsCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  const [sub, id] = args
  const db = await openDatabase(ctx, 2)
  if (sub === 'list') {
    const guilds = await createGuildWhitelistRows(db).list()
    const fromEnv = ctx.config.guildWhitelist.map((g) => `${g}\tGUILD_WHITELIST`)
    const stored = guilds.map((g) => `${g.guildId}\tadded by ${g.addedBy} at ${g.addedAt.toISOString()}`)
    const lines = [...fromEnv, ...stored]
    return { lines: lines.length === 0 ? ['no whitelisted guilds'] : lines, exitCode: 0 }
  }
  if ((sub !== 'add' && sub !== 'remove') || id === undefined || !SNOWFLAKE.test(id)) {
    return usage('guilds takes add ID, remove ID (a Discord guild id), or list')
  }
  const whitelist = buildGuildWhitelist(db, await openRedis(ctx, 'request', 'cli'), ctx.keys, ctx.config.guildWhitelist)
  if (sub === 'add') {
    const added = await whitelist.add(id, operatorName())
    return { lines: [added ? `whitelisted ${id}` : `${id} was already whitelisted`], exitCode: 0 }
  }
  return (await whitelist.remove(id)) ? { lines: [`removed ${id}`], exitCode: 0 } : fail(`${id} is not whitelisted`)
}
