/**
 * The OAuth2 URL that adds the bot to a guild (Discord's bot authorization flow): the application id, the `bot` and
 * `applications.commands` scopes and the permissions integer. The application id can be read from the bot token,
 * whose first part is the base64 of the bot's user id. Pure; the token never leaves this module.
 */

/** The scopes the bot is invited with: `bot` (the bot user joins) and `applications.commands` (its slash commands). */
export const INVITE_SCOPES = ['bot', 'applications.commands'] as const

const SNOWFLAKE = /^\d{17,20}$/

/** True when `id` looks like a Discord id (17 to 20 digits). */
export function isDiscordId(id: string): boolean {
  return SNOWFLAKE.test(id)
}

/** The invite URL in the form Discord documents (`client_id`, then the space-separated `scope`, then `permissions`). */
export function inviteUrl(applicationId: string, permissions: string): string {
  return `https://discord.com/oauth2/authorize?client_id=${applicationId}&scope=${INVITE_SCOPES.join('%20')}&permissions=${permissions}`
}

/**
 * The bot's user id from its token (`base64(user id).timestamp.hmac`), or null when the token does not have that
 * shape. The bot user of an application has the application's id, except for some very old applications.
 */
export function applicationIdFromToken(token: string): string | null {
  const first = token.trim().replace(/^Bot\s+/, '').split('.')[0] ?? ''
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(first)) return null
  const decoded = Buffer.from(first.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1')
  return isDiscordId(decoded) ? decoded : null
}
