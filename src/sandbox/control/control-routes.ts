/*
 * Control API of the sandbox: JSON in, JSON out, no auth, under /control. Errors are `{error: string}`.
 * Default world (fixed ids, see DefaultIds in ../world.ts): application and bot user 100000000000000100; guild
 * 100000000000000001 "Sandbox" (or SandboxOptions.whitelistedGuildId) with channels general ...011, server-log ...012,
 * ingame-log ...013, moderation-log ...014, roles @everyone (= guild id), Staff ...021 and the bot's managed role ...022.
 * Guilds added later get fresh snowflakes and the same channel and role set.
 *
 * GET    /control/state                 {applicationId, botUserId, defaultGuildId, staffRoleId, url, apiBase, robloxBase,
 *                                        gatewayUrl, guilds: [{id, name, shard, staffRoleId, channels: [{id, name}],
 *                                        roles: [{id, name}], memberCount}], commands: {global, guild: {[id]: [...]}},
 *                                        shards: [{id, connected, sessionId, seq}]}
 * POST   /control/guilds                {id?, name, shard?} -> the guild as in /state (+ sent); GUILD_CREATE to its shard.
 *                                        `shard` picks a fresh id routed to that shard.
 * POST   /control/members               {id, username, global_name?, nick?, guild_id?, roles?, permissions?}
 *                                        -> {created, member, sent}; GUILD_MEMBER_ADD, or GUILD_MEMBER_UPDATE if present.
 * DELETE /control/members               {id, guild_id?} -> {sent}; GUILD_MEMBER_REMOVE.
 * POST   /control/members/bulk          {guild_id?, members: [{id, username, global_name?, roles?}],
 *                                        presences?: [{user_id, status, activities}]} -> {added, updated, total, presences}.
 *                                        Dispatches nothing: the members show in GUILD_CREATE and member chunks.
 * POST   /control/presence              {user_id, status: online|idle|dnd|offline|invisible, activities?, guild_id?,
 *                                         after_member_chunks?}
 *                                        -> {sent, shards}: one PRESENCE_UPDATE per guild of the user (or guild_id),
 *                                        counted per receiving session; `shards` holds each receiver's shard id.
 *                                        With after_member_chunks: true -> {sent: 0, shards: [], held: true}, and the
 *                                        change is made right after the next member chunks of the user's guild.
 * POST   /control/commands              {user_id, name, options?, guild_id?, channel_id?, dm?, timeout_ms?}
 *                                        sends a slash command INTERACTION_CREATE and waits for the bot's final answer:
 *                                        200 {type, content, embeds, components, flags, message_id, interaction_id,
 *                                        attachments? (the files of the answer: filename, size, content_type)}
 *                                        (flags & 64 = ephemeral) or 504 {error: 'no reply'}; 503 if no session gets it.
 * POST   /control/components            {user_id, custom_id, message_id, channel_id?, component_type?, values?, timeout_ms?}
 *                                        a button (or select) click on a stored message; DMs carry `user`, no guild.
 *                                        Answers like /control/commands.
 * GET    /control/interactions          [{id, kind, name, user_id, guild_id, channel_id, callback_type, final,
 *                                        original_id, followup_ids}]
 * POST   /control/dispatch              {t, d, guild_id?, shard?} -> {sent, shards}; sends the event as given.
 * POST   /control/messages              {channel_id | dm: true, author_id, content, embeds?} -> the message; a user's
 *                                        message, dispatched as MESSAGE_CREATE (content blank without MESSAGE_CONTENT).
 * GET    /control/messages              ?channel_id=&webhook_id=&user_id= -> what the bot posted (channel messages,
 *                                        webhook executions, DMs), oldest first: [{id, channel_id, webhook_id?,
 *                                        dm_user_id?, content, embeds, components, allowed_mentions, flags, timestamp,
 *                                        edited_timestamp, author}]. Interaction responses are in /control/interactions.
 * POST   /control/webhooks              {channel_id, name?} -> {id, token, url, channel_id, guild_id}
 * POST   /control/webhooks/:id/fail     {status: 429|404|401|403|500|null, count? (default 1), retry_after? (seconds,
 *                                        default 1)} -> {pending}; the next `count` executions answer `status`.
 * POST   /control/channels/:id/fail     same, for message create/edit/delete in that channel (403 in a DM is 50007).
 * GET    /control/requests              {total, byRoute: {"POST /webhooks/:id/:token 200": n}} (REST and Roblox calls)
 * DELETE /control/requests              resets the counters -> {total: 0, byRoute: {}}
 * GET    /control/rate-limits           {route, message_create, webhook_execute, global}: each {limit, window_ms}, the
 *                                        Discord rate limits enforced (limit 0: headers only, never a 429).
 * POST   /control/rate-limits           {preset?: 'discord'|'unlimited', route?, message_create?, webhook_execute?,
 *                                        global?: {limit, window_ms} | null (Discord's)} -> the rules; buckets restart.
 * POST   /control/disconnect            {shard?, code? (default 4000), invalidate?, reconnect?} -> {ended}.
 *                                        `code` closes the socket; `invalidate` sends op 9 d:false; `reconnect` op 7.
 * POST   /control/application           {privileged_intents?: [GUILD_PRESENCES|GUILD_MEMBERS|MESSAGE_CONTENT], token?: string|null}
 *                                        -> {privileged_intents, token: 'any'|'fixed'}; the fake Developer Portal: an IDENTIFY
 *                                        asking for a privileged intent switched off is closed with 4014, another token
 *                                        gets 401 on REST and 4004 on IDENTIFY. `{}` reads the settings.
 * POST   /control/roblox-users          {id, name, displayName?} -> the user
 * POST   /control/roblox-fail           {status: number|null} -> {status}; every Roblox call answers it until cleared.
 * GET    /control/open-cloud/messages   ?universe_id=ID[&after=SEQ] -> {messages: [{seq, universe_id, topic, message, at}]}:
 *                                        what the fake Open Cloud accepted for that universe, oldest first.
 * POST   /control/open-cloud            {keys?: {"<universe>": key | null}, fail?: 429|500|null, times? (default 1),
 *                                        retry_after? (seconds)} -> {keys, fail, times, retry_after}; the accepted key per
 *                                        universe, and the next `times` publishes answer `fail`. GET reads the settings.
 * POST   /control/reset                 clears members, users, presences, messages, webhooks, failures, counters,
 *                                        rate-limit buckets, interactions, Roblox users and the fake Open Cloud's keys,
 *                                        failure and messages; keeps guilds, commands, connections and rate-limit rules.
 */
import { type ControlRoute } from './control-kit.js'
import { gatewayControlRoutes } from './gateway-control.js'
import { guildControlRoutes } from './guilds-control.js'
import { interactionControlRoutes } from './interactions-control.js'
import { memberControlRoutes } from './members-control.js'
import { messageControlRoutes } from './messages-control.js'
import { openCloudControlRoutes } from './open-cloud-control.js'
import { robloxControlRoutes } from './roblox-control.js'
import { sandboxControlRoutes } from './sandbox-control.js'

/** The control API routes (paths are relative to `/control`). */
export function controlRoutes(): ControlRoute[] {
  return [
    ...guildControlRoutes(),
    ...memberControlRoutes(),
    ...interactionControlRoutes(),
    ...gatewayControlRoutes(),
    ...messageControlRoutes(),
    ...sandboxControlRoutes(),
    ...robloxControlRoutes(),
    ...openCloudControlRoutes(),
  ]
}
