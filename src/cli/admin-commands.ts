/** The operator commands (migrate, keys, codes, guilds): each returns its output lines; the last line is the result. */
import { userInfo } from 'node:os'
import type { CodeService } from '../codes/code-service.js'
import { describeRefusal, isCode, type CodeAction } from '../core/codes.js'
import { createApiKeyRows } from '../mysql/api-key-rows.js'
import type { StoredCode } from '../mysql/code-rows.js'
import { createGuildWhitelistRows } from '../mysql/guild-whitelist-rows.js'
import { createCodeCache } from '../redis/code-cache.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { buildApiKeyService, buildCodeService, buildGuildWhitelist } from '../runtime/services.js'
import { openDatabase, openRedis } from '../runtime/storage.js'
import { usage, type CommandOutput } from './command.js'
import { runCommand } from './dispatch.js'

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

const SNOWFLAKE = /^\d{1,20}$/

/** `presence-link migrate`. */
export async function migrateCommand(ctx: ProcessContext): Promise<CommandOutput> {
  await openDatabase(ctx, 1)
  return { lines: ['migrated: up to date'], exitCode: 0 }
}

/** `presence-link keys ARGS` in this process. */
export function keysCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  return runCommand(ctx, ['keys', ...args])
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
  const redis = await openRedis(ctx, 'request', 'cli')
  if (name === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return usage('keys create needs --name of 1-64 letters, digits, _ . -')
  const created = await buildApiKeyService(db, redis, ctx.keys).create(name)
  if (!created.ok) return fail(`an active key named ${name} exists; revoke it first or pick another name`)
  return { lines: [`created API key ${name} (id ${created.id}); it is shown only once:`, created.key], exitCode: 0 }
}

/** `presence-link keys revoke NAME`. */
export async function revokeKeyCommand(ctx: ProcessContext, name: string | undefined): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const redis = await openRedis(ctx, 'request', 'cli')
  if (name === undefined) return usage('keys revoke needs a NAME')
  return (await buildApiKeyService(db, redis, ctx.keys).revoke(name)) ? { lines: [`revoked ${name}`], exitCode: 0 } : fail(`no active key named ${name}`)
}

async function codeService(ctx: ProcessContext): Promise<CodeService> {
  const db = await openDatabase(ctx, 2)
  // Write-through only: rebuilding the Redis copies is the workers' job (they watch for a lost cache).
  const redis = await openRedis(ctx, 'request', 'cli')
  return buildCodeService(db, createCodeCache(redis, ctx.keys))
}

/** `presence-link codes ARGS` in this process. */
export function codesCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  return runCommand(ctx, ['codes', ...args])
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
export async function codeCommand(ctx: ProcessContext, sub: 'show' | CodeAction, code: string | undefined): Promise<CommandOutput> {
  const actor = { source: 'cli', name: operatorName() }
  if (code === undefined || !isCode(code)) return usage(`codes ${sub} needs a CODE of 4 characters A-Z or 0-9`)
  const codes = await codeService(ctx)
  if (sub === 'show') {
    const found = await codes.show(code)
    return found === undefined ? fail(`no such code ${code}`) : { lines: describeCode(found), exitCode: 0 }
  }
  const result = await codes.act(code, sub, actor)
  if (!result.ok) return fail(`${sub} ${code}: ${describeRefusal(result.reason)}`)
  return { lines: [...describeCode({ ...(await codes.show(code))! })], exitCode: 0 }
}

/** `presence-link guilds ARGS` in this process. */
export function guildsCommand(ctx: ProcessContext, args: readonly string[]): Promise<CommandOutput> {
  return runCommand(ctx, ['guilds', ...args])
}

/** `presence-link guilds list`. */
export async function listGuildsCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const guilds = await createGuildWhitelistRows(db).list()
  const fromEnv = ctx.config.guildWhitelist.map((g) => `${g}\tGUILD_WHITELIST`)
  const stored = guilds.map((g) => `${g.guildId}\tadded by ${g.addedBy} at ${g.addedAt.toISOString()}`)
  const lines = [...fromEnv, ...stored]
  return { lines: lines.length === 0 ? ['no whitelisted guilds'] : lines, exitCode: 0 }
}

/** `presence-link guilds add|remove ID`. */
export async function changeGuildCommand(ctx: ProcessContext, sub: 'add' | 'remove', id: string | undefined): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  if (id === undefined || !SNOWFLAKE.test(id)) {
    return usage('guilds takes add ID, remove ID (a Discord guild id), or list')
  }
  const whitelist = buildGuildWhitelist(db, await openRedis(ctx, 'request', 'cli'), ctx.keys, ctx.config.guildWhitelist)
  if (sub === 'add') {
    const added = await whitelist.add(id, operatorName())
    return { lines: [added ? `whitelisted ${id}` : `${id} was already whitelisted`], exitCode: 0 }
  }
  return (await whitelist.remove(id)) ? { lines: [`removed ${id}`], exitCode: 0 } : fail(`${id} is not whitelisted`)
}
