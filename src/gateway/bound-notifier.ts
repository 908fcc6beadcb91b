/**
 * Sends the "your code was linked" DM with its "This wasn't me" button: the gateway's handler of the notify queue
 * (queue/notify.ts validates the notice and runs this for each one).
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, DiscordAPIError, type Client } from 'discord.js'
import { boundDm } from './model/replies.js'
import type { BoundNotice } from '../queue/model/jobs.js'
import { NOT_ME_PREFIX } from './model/command-definitions.js'

// Discord's "Cannot send messages to this user": the user closed DMs; retrying cannot help.
const CANNOT_DM = 50007

/** Creates the sender: the DM's message id, or why it was skipped. */
export function createBoundNotifier(client: Client, gamePlatformName: string) {
  return async (n: BoundNotice): Promise<{ messageId: string } | { skipped: string }> => {
    const button = new ButtonBuilder().setCustomId(`${NOT_ME_PREFIX}${n.code}`).setLabel("This wasn't me").setStyle(ButtonStyle.Danger)
    try {
      const dm = await client.users.createDM(n.chatUserId)
      const message = await dm.send({
        content: boundDm(n.code, n.platformUsername, n.platformUserId, gamePlatformName),
        components: [new ActionRowBuilder<ButtonBuilder>().addComponents(button)],
        allowedMentions: { parse: [] },
      })
      return { messageId: message.id }
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === CANNOT_DM) return { skipped: 'the user does not accept DMs' }
      throw err
    }
  }
}
