/** Sends the "your code was linked" DM with its "This wasn't me" button (the gateway's notify-queue consumer). */
import { UnrecoverableError, type Job } from 'bullmq'
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, DiscordAPIError, type Client } from 'discord.js'
import * as v from 'valibot'
import { NOT_ME_PREFIX } from './command-definitions.js'
import { boundDm } from './replies.js'

/** A bound-code notice. */
export const BoundNoticeSchema = v.object({
  chatUserId: v.pipe(v.string(), v.regex(/^\d{1,20}$/)),
  code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{4}$/)),
  platformUsername: v.string(),
  platformUserId: v.string(),
})

/** A notice's payload. */
export type BoundNotice = v.InferOutput<typeof BoundNoticeSchema>

// Discord's "Cannot send messages to this user": the user closed DMs; retrying cannot help.
const CANNOT_DM = 50007

/** Creates the processor. */
export function createBoundNotifier(client: Client, gamePlatformName: string) {
  return async (job: Job): Promise<{ messageId: string } | { skipped: string }> => {
    const parsed = v.safeParse(BoundNoticeSchema, job.data)
    if (!parsed.success) throw new UnrecoverableError('invalid bound notice')
    const n = parsed.output
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
