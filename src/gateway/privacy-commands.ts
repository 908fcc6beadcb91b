/**
 * The commands by which chat users own their data (issue 31): `/share`, `/mydata`, `/forget` and its buttons, and
 * `/staff forget`. The command handler routes to them; the work is the code service's and the privacy room's.
 */
import type { ButtonInteraction, ChatInputCommandInteraction } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import type { Logger } from '../lib/logger.js'
import { isShareSetting } from '../presence/model/share.js'
import type { ForgetService } from '../privacy/forget-service.js'
import { exportMyData, renderMyData, type MyData } from '../privacy/model/my-data.js'
import { FORGET_PREFIX, forgetButtons } from './model/command-definitions.js'
import { forgetAsk, reply, shareReply } from './model/replies.js'

/** A reply: text, or text with message components (buttons) or a file. */
export type Answer = string | { content: string; components?: object[]; file?: { name: string; data: Buffer } }

/** What the privacy commands need (a part of the command handler's dependencies). */
export interface PrivacyCommandDeps {
  codes: Pick<CodeService, 'setShare'>
  myData(chatUserId: string): Promise<MyData | null>
  forget: Pick<ForgetService, 'about' | 'forget'>
  gamePlatformName: string
  log: Logger
  /** Refreshes (or clears) the user's stored presence after a change. */
  onHolderChanged(userId: string): void
}

/** The privacy commands. */
export interface PrivacyCommands {
  /** `/share show:`: sets what games see and says so. */
  share(i: ChatInputCommandInteraction): Promise<string>
  /** `/mydata`: what is kept, with `mydata.json`. */
  myData(i: ChatInputCommandInteraction): Promise<Answer>
  /** `/forget`: asks, with the buttons; changes nothing. */
  forget(i: ChatInputCommandInteraction): Promise<Answer>
  /** A `/forget` button pressed: erases (Erase my data, by that user only) or not (Cancel). */
  pressed(i: ButtonInteraction): Promise<string>
  /** `/staff forget`: a member's erasure asked for by other channels, recorded under `staffName`. */
  staffForget(i: ChatInputCommandInteraction, staffName: string): Promise<string>
}

/** Creates the commands. */
export function createPrivacyCommands(deps: PrivacyCommandDeps): PrivacyCommands {
  return {
    async share(i) {
      const share = i.options.getString('show', true)
      if (!isShareSetting(share)) return reply('failed')
      const change = await deps.codes.setShare(i.user.id, share)
      if (change.outcome === 'no_code') return reply('noCode')
      // The change dropped the stored presence; this writes it again under the new setting.
      if (change.outcome === 'changed') deps.onHolderChanged(i.user.id)
      return shareReply(share, change.outcome === 'changed', change.next.paused)
    },

    async myData(i) {
      const data = await deps.myData(i.user.id)
      if (data === null) return reply('myDataNothing')
      return { content: renderMyData(data), file: { name: 'mydata.json', data: Buffer.from(JSON.stringify(exportMyData(data), null, 2)) } }
    },

    async forget(i) {
      const about = await deps.forget.about(i.user.id)
      if (about.codes.length === 0 && about.infractions === 0) return reply('forgetNothing')
      return { content: forgetAsk(about.codes, about.infractions, deps.gamePlatformName), components: forgetButtons(i.user.id) }
    },

    async pressed(i) {
      const [answer, userId] = i.customId.slice(FORGET_PREFIX.length).split(':')
      if (userId !== i.user.id) return reply('notForYou')
      if (answer !== 'yes') return reply('forgetCancelled')
      const erased = await deps.forget.forget(i.user.id, { source: 'discord' })
      deps.onHolderChanged(i.user.id)
      deps.log.info({ codes: erased.codes.length, infractions: erased.infractions, pushSubscriptions: erased.pushSubscriptions }, 'a chat user erased their data')
      return reply('forgetDone', { count: erased.codes.length })
    },

    async staffForget(i, staffName) {
      const userId = i.options.getUser('user', true).id
      if (!i.options.getBoolean('confirm', true)) return reply('staffForgetUnconfirmed', { userId })
      const about = await deps.forget.about(userId)
      if (about.codes.length === 0 && about.infractions === 0) return reply('staffForgetNothing', { userId })
      const erased = await deps.forget.forget(userId, { source: 'discord', name: staffName })
      deps.onHolderChanged(userId)
      return reply('staffForgotten', { userId, count: erased.codes.length, infractions: erased.infractions })
    },
  }
}
