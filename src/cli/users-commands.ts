/**
 * `presence-link users show|forget --chat-user ID`: what the service keeps about a chat user (what `/mydata` shows), and
 * their erasure (what `/forget` does), for requests that reach the operator by other channels (e-mail, a ticket).
 * The logic is the privacy room's (src/privacy/); these only open the clients and print.
 */
import { exportMyData, renderMyData } from '../privacy/model/my-data.js'
import { createCodeCache } from '../redis/code-cache.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { buildForgetService, buildMyDataReader } from '../runtime/services.js'
import { openDatabase } from '../runtime/storage.js'
import { operatorName, SNOWFLAKE } from './admin-commands.js'
import { openCliRedis } from './cli-redis.js'
import { usage, type CommandOutput } from './command.js'

/** `presence-link users show --chat-user ID [--json]`. */
export async function usersShowCommand(ctx: ProcessContext, chatUser: string | undefined, json: boolean): Promise<CommandOutput> {
  if (chatUser === undefined || !SNOWFLAKE.test(chatUser)) return usage('users show needs --chat-user with a Discord user id')
  const db = await openDatabase(ctx, 2)
  const redis = await openCliRedis(ctx)
  const { logRetentionDays, messageRetentionDays, forgetAfterLeaveDays } = ctx.config
  const data = await buildMyDataReader(db, redis, ctx.keys, { logRetentionDays, messageRetentionDays, forgetAfterLeaveDays })(chatUser)
  if (data === null) return { lines: [json ? 'null' : `the service keeps nothing about chat user ${chatUser}`], exitCode: 0 }
  if (json) return { lines: [JSON.stringify(exportMyData(data), null, 2)], exitCode: 0 }
  return { lines: renderMyData(data).replace(/\*\*/g, '').split('\n'), exitCode: 0 }
}

/** `presence-link users forget --chat-user ID [--yes]`: without --yes, prints what would be erased and changes nothing. */
export async function usersForgetCommand(ctx: ProcessContext, chatUser: string | undefined, yes: boolean): Promise<CommandOutput> {
  if (chatUser === undefined || !SNOWFLAKE.test(chatUser)) return usage('users forget needs --chat-user with a Discord user id')
  const db = await openDatabase(ctx, 2)
  const redis = await openCliRedis(ctx)
  const forget = buildForgetService(db, createCodeCache(redis, ctx.keys), redis, ctx.keys)
  const about = await forget.about(chatUser)
  if (about.codes.length === 0 && about.infractions === 0) return { lines: [`the service keeps nothing about chat user ${chatUser}: nothing to erase`], exitCode: 0 }
  const plan = [
    `codes: ${about.codes.map((c) => `${c.code} (${c.state}${c.platformUserId === null ? '' : `, linked to ${c.platformUsername ?? '?'} (${c.platformUserId})`})`).join(', ') || 'none'}`,
    `infractions whose link to the user is cut: ${about.infractions}`,
    `log entries whose "issued by" names the user: ${about.namedEntries}`,
    'also: the Redis copies (holder, presence, share setting), push subscriptions naming the codes',
  ]
  if (!yes) return { lines: [`would erase chat user ${chatUser}:`, ...plan, 'nothing changed: run again with --yes to erase'], exitCode: 0 }
  const erased = await forget.forget(chatUser, { source: 'cli', name: operatorName() })
  return {
    lines: [
      `erased chat user ${chatUser}: ${erased.codes.length} code(s) now unknown everywhere (${erased.codes.join(', ') || 'none'}), ` +
        `${erased.infractions} infraction(s) unlinked, ${erased.namedEntries} log entr${erased.namedEntries === 1 ? 'y' : 'ies'} renamed, ${erased.pushSubscriptions} push subscription(s) trimmed`,
    ],
    exitCode: 0,
  }
}
