/** The operator commands (migrate, keys, codes, guilds): each returns its output lines; the last line is the result. */
import { userInfo } from 'node:os'
import type { CodeService } from '../codes/code-service.js'
import { describeRefusal, isCode, type CodeAction } from '../codes/model/codes.js'
import { createApiKeyRows } from '../mysql/api-key-rows.js'
import type { StoredCode } from '../mysql/code-rows.js'
import { createGuildWhitelistRows, type WhitelistedGuild } from '../mysql/guild-whitelist-rows.js'
import { createCodeCache } from '../redis/code-cache.js'
import { readGatewayWhitelist, type PublishedGuildWhitelist } from '../redis/gateway-whitelist.js'
import { createGuildSet } from '../redis/guild-set.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { buildApiKeyService, buildCodeService, buildGuildWhitelist } from '../runtime/services.js'
import { openDatabase } from '../runtime/storage.js'
import { migrateWithRetry } from '../mysql/migrate.js'
import { openCliRedis } from './cli-redis.js'
import { usage, type CommandOutput } from './command.js'

/** Who runs the CLI, for moderation trails: `cli:<login name>`. */
export function operatorName(): string {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return 'cli:operator'
  }
}

function fail(message: string, exitCode = 1): CommandOutput {
  return { lines: [`error: ${message}`], exitCode }
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

/** A Discord id (user, guild) as the commands take it. */
export const SNOWFLAKE = /^\d{1,20}$/

/**
 * A CODE as the operator typed it, read in any case (`0puk` is `0PUK`); undefined when it is not a code. Only ASCII
 * letters are raised: toUpperCase would turn `ı` into `I` and `ﬀ` into `FF`, forgiving more than the case.
 */
export function readCodeArgument(typed: string | undefined): string | undefined {
  const code = typed?.replace(/[a-z]/g, (c) => c.toUpperCase())
  return code !== undefined && isCode(code) ? code : undefined
}

/** `presence-link migrate`: tries again while the connection is lost under it (a server still settling), as the parts wait. */
export async function migrateCommand(ctx: ProcessContext): Promise<CommandOutput> {
  await migrateWithRetry(ctx.config.databaseUrl, (reason, retryInMs) => ctx.log.warn({ reason, retryInMs }, 'migrate: the MySQL connection was lost; trying again'))
  return { lines: ['migrated: up to date'], exitCode: 0 }
}

/** `presence-link keys list`. */
export async function listKeysCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const keys = await createApiKeyRows(db).list()
  if (keys.length === 0) return { lines: ['no API keys'], exitCode: 0 }
  return {
    lines: keys.map((k) => `${k.name}\t${k.id}\tcreated ${k.createdAt.toISOString()}\t${k.revokedAt === null ? 'active' : `revoked ${k.revokedAt.toISOString()}`}`),
    exitCode: 0,
  }
}

/** `presence-link keys create --name NAME`. */
export async function createKeyCommand(ctx: ProcessContext, name: string | undefined): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const redis = await openCliRedis(ctx)
  if (name === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return usage('keys create needs --name of 1-64 letters, digits, _ . -')
  const created = await buildApiKeyService(db, redis, ctx.keys).create(name)
  if (!created.ok) return fail(`an active key named ${name} exists; revoke it first or pick another name`)
  return { lines: [`created API key ${name} (id ${created.id}); it is shown only once:`, created.key], exitCode: 0 }
}

/** `presence-link keys revoke NAME`. */
export async function revokeKeyCommand(ctx: ProcessContext, name: string | undefined): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const redis = await openCliRedis(ctx)
  if (name === undefined) return usage('keys revoke needs a NAME')
  return (await buildApiKeyService(db, redis, ctx.keys).revoke(name)) ? { lines: [`revoked ${name}`], exitCode: 0 } : fail(`no active key named ${name}`)
}

async function codeService(ctx: ProcessContext): Promise<CodeService> {
  const db = await openDatabase(ctx, 2)
  // Write-through only: rebuilding the Redis copies is the workers' job (they watch for a lost cache).
  const redis = await openCliRedis(ctx)
  return buildCodeService(db, createCodeCache(redis, ctx.keys))
}

/** `presence-link codes issue|rotate --chat-user ID`. */
export async function userCodeCommand(ctx: ProcessContext, sub: 'issue' | 'rotate', user: string | undefined): Promise<CommandOutput> {
  const actor = { source: 'cli', name: operatorName() }
  if (user === undefined || !SNOWFLAKE.test(user)) return usage(`codes ${sub} needs --chat-user with a Discord user id`)
  const codes = await codeService(ctx)
  if (sub === 'issue') {
    const { code, created } = await codes.issue(user)
    return { lines: [created ? 'issued a new code' : 'the user already has a live code', ...describeCode(code).slice(1), code.code], exitCode: 0 }
  }
  const { previous, code } = await codes.rotate(user, actor)
  return { lines: [previous === undefined ? 'the user had no live code' : `revoked ${previous.code}`, code.code], exitCode: 0 }
}

/** `presence-link codes show|ban|unban|pause|resume|reset|revoke CODE`. */
export async function codeCommand(ctx: ProcessContext, sub: 'show' | CodeAction, typed: string | undefined): Promise<CommandOutput> {
  const actor = { source: 'cli', name: operatorName() }
  const code = readCodeArgument(typed)
  if (code === undefined) return usage(`codes ${sub} needs a CODE of 4 characters A-Z or 0-9 (in any case)`)
  const codes = await codeService(ctx)
  if (sub === 'show') {
    const found = await codes.show(code)
    return found === undefined ? fail(`no such code ${code}`) : { lines: describeCode(found), exitCode: 0 }
  }
  const result = await codes.act(code, sub, actor)
  if (!result.ok) return fail(`${sub} ${code}: ${describeRefusal(result.reason)}`)
  return { lines: [...describeCode({ ...(await codes.show(code))! })], exitCode: 0 }
}

/**
 * The lines of `guilds list`: the gateway's GUILD_WHITELIST as it published it (or, when no gateway has, this
 * command's own, said so), then the stored guilds, each marked when the gateway's Redis copy disagrees with MySQL.
 */
export function describeGuildWhitelist(input: {
  published: PublishedGuildWhitelist | undefined
  ownEnv: readonly string[]
  stored: readonly WhitelistedGuild[]
  copy: readonly string[]
}): string[] {
  const { published, stored } = input
  const lines: string[] = []
  if (published === undefined) {
    lines.push('note: no gateway has published its GUILD_WHITELIST under this REDIS_PREFIX (each does when it starts), so the guilds it adds are not shown')
    lines.push(...input.ownEnv.map((g) => `${g}\tGUILD_WHITELIST of this command's environment, not necessarily the gateway's`))
  } else {
    const from = `GUILD_WHITELIST of the gateway (shards ${published.shards.join(',')} of ${published.shardCount}, started ${published.at.toISOString()})`
    lines.push(...published.guilds.map((g) => `${g}\t${from}`))
  }
  const copy = new Set(input.copy)
  for (const g of stored) {
    const missing = copy.has(g.guildId) ? '' : "\tmissing from the gateway's Redis copy: not logged until `guilds add` again or a gateway restart"
    lines.push(`${g.guildId}\tadded by ${g.addedBy} at ${g.addedAt.toISOString()}${missing}`)
  }
  const storedIds = new Set(stored.map((g) => g.guildId))
  for (const g of input.copy) if (!storedIds.has(g)) lines.push(`${g}\tin the gateway's Redis copy only (not in MySQL): logged until the next gateway restart`)
  const listed = lines.filter((l) => !l.startsWith('note: ')).length
  if (listed === 0) lines.push('no whitelisted guilds')
  return lines
}

/** `presence-link guilds list`: what the gateway checks (its GUILD_WHITELIST and the Redis copy), with MySQL's rows. */
export async function listGuildsCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const redis = await openCliRedis(ctx)
  const [published, stored, copy] = await Promise.all([
    readGatewayWhitelist(redis, ctx.keys),
    createGuildWhitelistRows(db).list(),
    createGuildSet(redis, ctx.keys).members(),
  ])
  return { lines: describeGuildWhitelist({ published, ownEnv: ctx.config.guildWhitelist, stored, copy: copy.sort() }), exitCode: 0 }
}

/** `presence-link guilds add|remove ID`. */
export async function changeGuildCommand(ctx: ProcessContext, sub: 'add' | 'remove', id: string | undefined): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  if (id === undefined || !SNOWFLAKE.test(id)) {
    return usage('guilds takes add ID, remove ID (a Discord guild id), or list')
  }
  const whitelist = buildGuildWhitelist(db, await openCliRedis(ctx), ctx.keys, ctx.config.guildWhitelist)
  if (sub === 'add') {
    const added = await whitelist.add(id, operatorName())
    return { lines: [added ? `whitelisted ${id}` : `${id} was already whitelisted`], exitCode: 0 }
  }
  return (await whitelist.remove(id)) ? { lines: [`removed ${id}`], exitCode: 0 } : fail(`${id} is not whitelisted`)
}
