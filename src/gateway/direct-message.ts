/** Sends a plain DM to a user and reports whether it arrived, so a staff reply can say when it did not. */
import { DiscordAPIError, type Client } from 'discord.js'
import type { DmOutcome } from './model/replies.js'
import type { Logger } from '../lib/logger.js'

// Discord's "Cannot send messages to this user": the user closed DMs from server members or blocked the bot.
const CANNOT_DM = 50007

/** Creates the sender: `sent`, `closed` (the user does not accept DMs) or `failed` (logged). */
export function createDirectMessenger(client: Client, log: Logger): (userId: string, content: string) => Promise<DmOutcome> {
  return async (userId, content) => {
    try {
      const dm = await client.users.createDM(userId)
      await dm.send({ content, allowedMentions: { parse: [] } })
      return 'sent'
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === CANNOT_DM) return 'closed'
      log.warn({ err: (err as Error).message, userId }, 'direct message failed')
      return 'failed'
    }
  }
}
