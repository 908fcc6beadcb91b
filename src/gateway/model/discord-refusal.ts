/**
 * Discord refusing the bot for good: a rejected token (401 at login, or gateway close 4004) or a privileged intent
 * that is not switched on (close 4014). Retrying cannot help, so the gateway says in one line what to fix and exits
 * with 78 (EX_CONFIG). Pure: recognises the refusal and words the line.
 */
import type { BotIntent } from './bot-intents.js'


/** Gateway close code: the token sent with IDENTIFY is incorrect. */
export const CLOSE_AUTHENTICATION_FAILED = 4004

/** Gateway close code: IDENTIFY asked for a privileged intent that is not enabled (or approved) for the application. */
export const CLOSE_DISALLOWED_INTENTS = 4014

/** Why Discord refused the bot. */
export type DiscordRefusal =
  | { kind: 'token'; via: 'login' | 'gateway' }
  | { kind: 'intents' }

/** Thrown by the gateway start when Discord refuses the bot. */
export class DiscordRefusedError extends Error {
  constructor(readonly refusal: DiscordRefusal) {
    super(`Discord refused the bot (${refusal.kind})`)
    this.name = 'DiscordRefusedError'
  }
}

/** The refusal a gateway close code means, or null for a close the client recovers from. */
export function refusalOfClose(code: number): DiscordRefusal | null {
  if (code === CLOSE_AUTHENTICATION_FAILED) return { kind: 'token', via: 'gateway' }
  if (code === CLOSE_DISALLOWED_INTENTS) return { kind: 'intents' }
  return null
}

/** The refusal a failed login means: discord.js turns the 401 of `GET /gateway/bot` into `TokenInvalid`. */
export function refusalOfLoginError(err: unknown): DiscordRefusal | null {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
  return code === 'TokenInvalid' ? { kind: 'token', via: 'login' } : null
}

const PORTAL = 'the Discord Developer Portal (https://discord.com/developers/applications)'

function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`
}

/** The one log line for `refusal` (its message and fields); `intents` are those the gateway identified with. */
export function refusalLine(refusal: DiscordRefusal, intents: readonly BotIntent[]): { message: string; fields: Record<string, unknown> } {
  if (refusal.kind === 'token') {
    const how = refusal.via === 'login' ? '401 Unauthorized at login' : 'gateway close 4004, authentication failed'
    return {
      message:
        `Discord rejected DISCORD_TOKEN (${how}): the token is wrong or was reset. Get a new one with "Reset Token" ` +
        `on the Bot page of the application in ${PORTAL}, put it in DISCORD_TOKEN, then start the gateway again.`,
      fields: refusal.via === 'login' ? { status: 401 } : { closeCode: CLOSE_AUTHENTICATION_FAILED },
    }
  }
  const privileged = intents.filter((intent) => intent.portalSwitch !== null)
  const bits = intents.reduce((sum, intent) => sum | intent.bit, 0)
  const contentHint = privileged.some((intent) => intent.optional === true) ? ' (or set MESSAGE_CONTENT=off to run without message text)' : ''
  return {
    message:
      `Discord refused the gateway intents (close 4014, disallowed intents): the bot asks for ` +
      `${intents.map((intent) => intent.name).join(', ')} (${bits}), of which ${listed(privileged.map((intent) => intent.name))} ` +
      `${privileged.length === 1 ? 'is' : 'are'} privileged. Turn on ${listed(privileged.map((intent) => `"${intent.portalSwitch!}"`))} ` +
      `under "Privileged Gateway Intents" on the Bot page of the application in ${PORTAL}${contentHint}, then start the gateway again.`,
    fields: { closeCode: CLOSE_DISALLOWED_INTENTS, intents: bits, privileged: privileged.map((intent) => intent.name) },
  }
}

/** Discord's JSON error code for a guild that did not authorize the application for what it asked (Missing Access). */
export const MISSING_ACCESS = 50001

/**
 * The warning for commands a guild refused to register, or null for any other failure: 50001 there means the guild
 * invited the bot without the `applications.commands` scope. The gateway keeps running for every other guild.
 */
export function commandRegistrationRefusal(err: unknown): string | null {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
  if (code !== MISSING_ACCESS) return null
  return (
    'this guild refused the slash commands (403 Missing Access): the bot was invited without the applications.commands ' +
    'scope, so /code and /staff are missing there. Invite it again with the URL `presence-link discord invite-url` ' +
    'prints (docs/discord.md); presence and audit logging go on meanwhile.'
  )
}
