/**
 * Destination targets, pure: a Discord channel id the bot posts in, or a webhook URL. Webhook URLs are accepted
 * from Discord's hosts, from loopback (the local sandbox hands out `http://127.0.0.1:PORT/api/webhooks/ID/TOKEN`)
 * and from the origin of DISCORD_API (a configured proxy or fake); the REST base is taken from the URL itself.
 */

import type { LogCategoryName } from '../../queue/model/log-categories.js'

/** The environment variable that seeds each category's destination. */
export const DESTINATION_VARIABLE: Readonly<Record<LogCategoryName, string>> = Object.freeze({
  server: 'LOG_DESTINATION_SERVER',
  ingame: 'LOG_DESTINATION_INGAME',
  moderation: 'LOG_DESTINATION_MODERATION',
})

/** Where a category's entries go. */
export type DestinationTarget =
  | { kind: 'channel'; channelId: string }
  | { kind: 'webhook'; webhookId: string; token: string; apiBase: string }

/** Result of reading a target: the target, or why it is not one (a phrase starting with "must"). */
export type TargetParse = { ok: true; target: DestinationTarget } | { ok: false; message: string }

/** The message every refusal carries, so config and CLI say the same thing. */
export const TARGET_HINT = 'a Discord channel id (17-20 digits) or a webhook URL like https://discord.com/api/webhooks/ID/TOKEN'

const CHANNEL_ID = /^\d{17,20}$/
const WEBHOOK_PATH = /^(?<prefix>(?:\/[^/]+)*?)\/api(?:\/v\d{1,2})?\/webhooks\/(?<id>\d{17,20})\/(?<token>[A-Za-z0-9_-]{1,100})\/?$/
const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'canary.discord.com', 'ptb.discord.com', 'canary.discordapp.com', 'ptb.discordapp.com'])
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Reads a channel id or a webhook URL; `discordApi` (DISCORD_API, may be '') adds its origin to the trusted hosts. */
export function parseDestinationTarget(value: string, discordApi = ''): TargetParse {
  const text = value.trim()
  if (CHANNEL_ID.test(text)) return { ok: true, target: { kind: 'channel', channelId: text } }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, message: `must be ${TARGET_HINT}` }
  }
  const match = WEBHOOK_PATH.exec(url.pathname)
  if (match?.groups === undefined) return { ok: false, message: `must be ${TARGET_HINT}` }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must be a webhook URL without a query, fragment or credentials' }
  }
  const trusted =
    (url.protocol === 'https:' && DISCORD_HOSTS.has(url.hostname)) ||
    ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)) ||
    (discordApi !== '' && sameOrigin(url, discordApi))
  if (!trusted) return { ok: false, message: 'must be a webhook URL on discord.com (https), on loopback, or on the DISCORD_API host' }
  const { prefix = '', id = '', token = '' } = match.groups
  return { ok: true, target: { kind: 'webhook', webhookId: id, token, apiBase: `${url.origin}${prefix}/api` } }
}

function sameOrigin(url: URL, base: string): boolean {
  try {
    return new URL(base).origin === url.origin
  } catch {
    return false
  }
}

/** The stored form of a target (the channel id, or the webhook URL rebuilt without a version). */
export function targetText(target: DestinationTarget): string {
  return target.kind === 'channel' ? target.channelId : `${target.apiBase}/webhooks/${target.webhookId}/${target.token}`
}

/** A target safe to print: webhook tokens are secrets, so only their first 4 characters are shown. */
export function describeTarget(target: DestinationTarget): string {
  if (target.kind === 'channel') return `channel ${target.channelId}`
  return `webhook ${target.apiBase}/webhooks/${target.webhookId}/${target.token.slice(0, 4)}…`
}
