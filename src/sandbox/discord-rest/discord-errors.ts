/*
 * Every error the fake Discord REST API answers, as Discord sends it: HTTP status plus `{message, code}`. discord.js
 * turns these into `DiscordAPIError` with the same `code`, so the bot's error handling sees what production would.
 */
import type { Reply } from '../http-reply.js'

/** Every error the fake Discord answers with: HTTP status, Discord JSON error code and message. */
export const DiscordErrors = {
  unauthorized: { status: 401, code: 0, message: '401: Unauthorized' },
  missingPermissions: { status: 403, code: 50013, message: 'Missing Permissions' },
  missingAccess: { status: 403, code: 50001, message: 'Missing Access' },
  cannotMessageUser: { status: 403, code: 50007, message: 'Cannot send messages to this user' },
  unknownRoute: { status: 404, code: 0, message: 'Unknown route' },
  unknownChannel: { status: 404, code: 10003, message: 'Unknown Channel' },
  unknownGuild: { status: 404, code: 10004, message: 'Unknown Guild' },
  unknownMember: { status: 404, code: 10007, message: 'Unknown Member' },
  unknownMessage: { status: 404, code: 10008, message: 'Unknown Message' },
  unknownRole: { status: 404, code: 10011, message: 'Unknown Role' },
  unknownUser: { status: 404, code: 10013, message: 'Unknown User' },
  unknownWebhook: { status: 404, code: 10015, message: 'Unknown Webhook' },
  unknownApplication: { status: 404, code: 10002, message: 'Unknown Application' },
  unknownCommand: { status: 404, code: 10063, message: 'Unknown application command' },
  unknownInteraction: { status: 404, code: 10062, message: 'Unknown interaction' },
  alreadyAcknowledged: { status: 400, code: 40060, message: 'Interaction has already been acknowledged.' },
  emptyMessage: { status: 400, code: 50006, message: 'Cannot send an empty message' },
  invalidFormBody: { status: 400, code: 50035, message: 'Invalid Form Body' },
  invalidRecipient: { status: 400, code: 50033, message: 'Invalid Recipient(s)' },
  invalidJson: { status: 400, code: 50109, message: 'The request body contains invalid JSON.' },
  cannotEditOthers: { status: 403, code: 50005, message: 'Cannot edit a message authored by another user' },
  internalError: { status: 500, code: 0, message: '500: Internal Server Error' },
} as const

/** Name of one entry of {@link DiscordErrors}. */
export type DiscordErrorName = keyof typeof DiscordErrors

/** A Discord-style error reply `{message, code}` from the shared error list. */
export function discordError(name: DiscordErrorName, extra?: Record<string, unknown>): Reply {
  const e = DiscordErrors[name]
  return { status: e.status, body: { message: e.message, code: e.code, ...extra } }
}
