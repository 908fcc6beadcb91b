/**
 * Answers slash commands and the "This wasn't me" button, through the same code service as the CLI. Staff commands
 * act only in the staff guilds and never show a user's full code.
 */
import { MessageFlags, PermissionFlagsBits, type ButtonInteraction, type ChatInputCommandInteraction, type Interaction, type InteractionEditReplyOptions } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import { isCode, type CodeAction } from '../codes/model/codes.js'
import { codeReply, maskCode, refusedReply, reply, rotatedDm, rotatedReply, staffInfo, type DmOutcome } from './model/replies.js'
import { PLATFORM_USER_ID } from '../safety/model/watchlist.js'
import type { Logger } from '../lib/logger.js'
import type { StoredCode } from '../mysql/code-rows.js'
import type { InfractionRows } from '../mysql/infraction-rows.js'
import type { WatchlistRows } from '../mysql/watchlist-rows.js'
import { FORGET_PREFIX, NOT_ME_PREFIX } from './model/command-definitions.js'
import type { ForgetService } from '../privacy/forget-service.js'
import type { MyData } from '../privacy/model/my-data.js'
import { createPrivacyCommands, type Answer } from './privacy-commands.js'

/** What the handler needs. */
export interface CommandHandlerDeps {
  codes: CodeService
  infractions: Pick<InfractionRows, 'count' | 'list' | 'pardon'>
  watchlist: Pick<WatchlistRows, 'add' | 'remove'>
  /** The guilds whose staff act for this deployment (STAFF_GUILD_IDS); staff commands anywhere else are refused. */
  staffGuildIds: readonly string[]
  staffRoleId: string
  gamePlatformName: string
  log: Logger
  /** Sends a DM (the rotated code goes to its owner this way). */
  sendDm(userId: string, content: string): Promise<DmOutcome>
  /** What the service keeps about a user (`/mydata`); null when nothing. */
  myData(chatUserId: string): Promise<MyData | null>
  /** A user's erasure (`/forget` and its button). */
  forget: Pick<ForgetService, 'about' | 'forget'>
  /** Called after a user's code changed hands or share setting, so their presence is refreshed or cleared. */
  onHolderChanged(userId: string): void
}

const NO_MENTIONS = { parse: [] as [] }


const RECENT_INFRACTIONS = 5

function isStaff(i: ChatInputCommandInteraction, staffRoleId: string): boolean {
  if (i.memberPermissions?.has(PermissionFlagsBits.ManageGuild) === true) return true
  if (staffRoleId === '' || i.member === null) return false
  const roles = i.member.roles
  return Array.isArray(roles) ? roles.includes(staffRoleId) : roles.cache.has(staffRoleId)
}

/** Who acted, as the code service records it. */
function actorOf(i: Interaction): { source: string; name: string } {
  return { source: 'discord', name: `${i.user.username} (${i.user.id})` }
}

/** /staff pardon: an infraction stops counting (it stays in the log). */
async function pardon(infractions: CommandHandlerDeps['infractions'], i: ChatInputCommandInteraction): Promise<string> {
  const id = String(i.options.getInteger('infraction', true))
  if (!/^[1-9]\d{0,18}$/.test(id)) return reply('pardonBadId')
  const result = await infractions.pardon(id, actorOf(i).name, i.options.getString('reason'))
  if (result.outcome === 'not_found') return reply('pardonNotFound', { id })
  const of = { id, eventType: result.infraction.eventType.slice(0, 64), userId: result.infraction.chatUserId }
  if (result.outcome === 'already_pardoned') return reply('pardonAlready', { ...of, by: result.infraction.pardon?.by ?? '?' })
  return reply('pardoned', of)
}

/** /staff watch and unwatch: a game account on or off the watchlist. */
async function watch(watchlist: CommandHandlerDeps['watchlist'], i: ChatInputCommandInteraction, sub: 'watch' | 'unwatch'): Promise<string> {
  const id = String(i.options.getInteger('platform_user_id', true))
  if (!PLATFORM_USER_ID.test(id)) return reply('watchBadId')
  if (sub === 'unwatch') {
    return reply((await watchlist.remove(id)) ? 'unwatched' : 'notWatched', { id })
  }
  const outcome = await watchlist.add({ platformUserId: id, reason: i.options.getString('reason'), addedBy: actorOf(i).name })
  return reply(outcome === 'added' ? 'watched' : 'watchUpdated', { id })
}

/** The message of an answer: its text, buttons and file. */
function messageOf(answer: Answer): InteractionEditReplyOptions {
  if (typeof answer === 'string') return { content: answer }
  return {
    content: answer.content,
    ...(answer.components === undefined ? {} : { components: answer.components as InteractionEditReplyOptions['components'] }),
    ...(answer.file === undefined ? {} : { files: [{ attachment: answer.file.data, name: answer.file.name }] }),
  }
}

/** The owner of a code pressed "this wasn't me" in a DM: the code is invalidated, or why not. */
async function notMe(codes: CodeService, i: ButtonInteraction): Promise<string> {
  const code = i.customId.slice(NOT_ME_PREFIX.length)
  const record = isCode(code) ? await codes.show(code) : undefined
  if (record === undefined || record.chatUserId !== i.user.id) return reply('notForYou')
  const result = await codes.act(code, 'invalidate', { source: 'discord', name: `${i.user.username} (${i.user.id}): this wasn't me` })
  if (result.ok) return reply('notMeDone', { code })
  // The owner pressing an old DM's button: say what state the code is in and what to do, not a staff-facing refusal.
  return reply(result.reason === 'banned' ? 'notMeBanned' : result.reason === 'invalidated' ? 'notMeAlready' : 'notMeRetired', { code })
}

/** Creates the interaction listener. */
export function createCommandHandler(deps: CommandHandlerDeps): (interaction: Interaction) => Promise<void> {
  const { codes, log } = deps
  const privacy = createPrivacyCommands(deps)

  const ownAction = async (i: ChatInputCommandInteraction, action: CodeAction, done: (c: StoredCode) => string) => {
    const live = await codes.ofUser(i.user.id)
    if (live === undefined) {
      await codes.refreshUser(i.user.id)
      return reply('noCode')
    }
    const result = await codes.act(live.code, action, actorOf(i))
    if (!result.ok && result.reason === 'banned' && action === 'unlink') return reply('unlinkBanned', { code: live.code })
    if (!result.ok) return refusedReply(result.reason)
    return done(live)
  }

  const user = async (i: ChatInputCommandInteraction): Promise<Answer> => {
    switch (i.commandName) {
      case 'code': {
        const { code, created } = await codes.issue(i.user.id)
        if (created) deps.onHolderChanged(i.user.id)
        return codeReply(code, created, deps.gamePlatformName)
      }
      case 'pause':
        return ownAction(i, 'pause', () => reply('paused'))
      case 'resume':
        return ownAction(i, 'resume', () => reply('resumed'))
      case 'share':
        return privacy.share(i)
      case 'mydata':
        return privacy.myData(i)
      case 'forget':
        return privacy.forget(i)
      case 'unlink':
        return ownAction(i, 'unlink', (c) => {
          deps.onHolderChanged(i.user.id)
          return reply('unlinked', { code: c.code, link: c.platformUsername === null ? '' : reply('unlinkedLink', { username: c.platformUsername }) })
        })
      case 'staff':
        return staff(i)
      default:
        // A command this bot does not have (one registered by an older release, or by another program with the
        // same application): say so, rather than treating it as a staff command and refusing the member.
        log.info({ guild: i.guildId, user: i.user.id, command: i.commandName }, 'unknown slash command')
        return reply('unknownCommand', { name: i.commandName })
    }
  }

  const staffGuilds = new Set(deps.staffGuildIds)

  const staff = async (i: ChatInputCommandInteraction): Promise<string> => {
    // First, before reading any option: Manage Server in some other guild the bot is in must grant nothing here.
    if (i.guildId === null || !staffGuilds.has(i.guildId)) {
      log.warn({ guild: i.guildId, user: i.user.id, command: i.commandName }, 'staff command outside the staff guilds refused')
      return reply('staffWrongGuild')
    }
    if (!isStaff(i, deps.staffRoleId)) return reply('staffOnly')
    const sub = i.options.getSubcommand()
    if (sub === 'watch' || sub === 'unwatch') return watch(deps.watchlist, i, sub)
    if (sub === 'pardon') return pardon(deps.infractions, i)
    if (sub === 'forget') return privacy.staffForget(i, actorOf(i).name)
    const target = i.options.getUser('user')
    const codeOption = i.options.getString('code')?.trim().toUpperCase() ?? null
    if ((target === null) === (codeOption === null)) return reply('staffUserOrCode')
    if (codeOption !== null && !isCode(codeOption)) return reply('staffBadCode')
    const record = codeOption !== null ? await codes.show(codeOption) : await codes.ofUser(target!.id)
    if (sub === 'rotate') {
      const userId = target?.id ?? record?.chatUserId
      if (userId === undefined) return reply('staffNoSuchCode')
      const { previous, code } = await codes.rotate(userId, actorOf(i))
      deps.onHolderChanged(userId)
      const old = previous?.code ?? null
      const dm = await deps.sendDm(userId, rotatedDm(code.code, old, deps.gamePlatformName))
      return rotatedReply(userId, old, code.code, dm)
    }
    if (record === undefined || record.state === 'revoked') {
      if (target !== null) await codes.refreshUser(target.id)
      else if (record !== undefined) await codes.refresh(record.code)
      return target === null ? reply('staffNoSuchCode') : reply('staffUserHasNoCode', { userId: target.id })
    }
    if (sub === 'info') {
      const [total, pardoned, page] = await Promise.all([
        deps.infractions.count({ code: record.code }),
        deps.infractions.count({ code: record.code, pardoned: true }),
        deps.infractions.list({ code: record.code, limit: RECENT_INFRACTIONS }),
      ])
      return staffInfo(record, total, pardoned, page.infractions)
    }
    const result = await codes.act(record.code, sub as CodeAction, actorOf(i))
    if (!result.ok) return refusedReply(result.reason)
    return reply('staffDone', { action: sub, masked: maskCode(record.code), userId: record.chatUserId })
  }

  return async (interaction) => {
    try {
      if (interaction.isChatInputCommand()) {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral })
        await interaction.editReply({ ...messageOf(await user(interaction)), allowedMentions: NO_MENTIONS })
      } else if (interaction.isButton() && interaction.customId.startsWith(FORGET_PREFIX)) {
        // The question's message becomes the answer, its buttons gone (so it cannot be pressed twice).
        await interaction.deferUpdate()
        await interaction.editReply({ content: await privacy.pressed(interaction), components: [], allowedMentions: NO_MENTIONS })
      } else if (interaction.isButton() && interaction.customId.startsWith(NOT_ME_PREFIX)) {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral })
        await interaction.editReply({ content: await notMe(codes, interaction), allowedMentions: NO_MENTIONS })
      }
    } catch (err) {
      log.error({ err, interaction: interaction.id }, 'interaction failed')
      if (interaction.isRepliable() && interaction.deferred) {
        await interaction.editReply({ content: reply('failed') }).catch(() => undefined)
      }
    }
  }
}
