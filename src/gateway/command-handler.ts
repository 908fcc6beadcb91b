/**
 * Answers slash commands and the "This wasn't me" button, through the same code service as the CLI. Staff commands
 * act only in the staff guilds and never show a user's full code.
 */
import { MessageFlags, PermissionFlagsBits, type ButtonInteraction, type ChatInputCommandInteraction, type Interaction } from 'discord.js'
import type { CodeService } from '../codes/code-service.js'
import { describeRefusal, isCode, type CodeAction } from '../core/codes.js'
import { codeReply, maskCode, rotatedDm, rotatedReply, staffInfo, type DmOutcome } from '../core/replies.js'
import { PLATFORM_USER_ID } from '../core/watchlist.js'
import type { Logger } from '../lib/logger.js'
import type { StoredCode } from '../mysql/code-rows.js'
import type { InfractionRows } from '../mysql/infraction-rows.js'
import type { WatchlistRows } from '../mysql/watchlist-rows.js'
import { NOT_ME_PREFIX } from './command-definitions.js'

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
  /** Called after a user's code changed hands, so their presence is refreshed or cleared. */
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

/** Creates the interaction listener. */
export function createCommandHandler(deps: CommandHandlerDeps): (interaction: Interaction) => Promise<void> {
  const { codes, log } = deps
  const actorOf = (i: Interaction) => ({ source: 'discord', name: `${i.user.username} (${i.user.id})` })

  const ownAction = async (i: ChatInputCommandInteraction, action: CodeAction, done: (c: StoredCode) => string) => {
    const live = await codes.ofUser(i.user.id)
    if (live === undefined) {
      await codes.refreshUser(i.user.id)
      return 'You have no code yet. Use /code to get one.'
    }
    const result = await codes.act(live.code, action, actorOf(i))
    if (!result.ok) return `Nothing changed: ${describeRefusal(result.reason)}.`
    return done(live)
  }

  const user = async (i: ChatInputCommandInteraction): Promise<string> => {
    switch (i.commandName) {
      case 'code': {
        const { code, created } = await codes.issue(i.user.id)
        if (created) deps.onHolderChanged(i.user.id)
        return codeReply(code, created, deps.gamePlatformName)
      }
      case 'pause':
        return ownAction(i, 'pause', () => 'Detection paused: games now see "Detection Paused". Use /resume to undo.')
      case 'resume':
        return ownAction(i, 'resume', () => 'Detection resumed: games see your activity again.')
      case 'unlink':
        return ownAction(i, 'revoke', (c) => {
          deps.onHolderChanged(i.user.id)
          return `Your code **${c.code}** is retired${c.platformUsername === null ? '' : ` and its link to **${c.platformUsername}** removed`}. Use /code to get a new one.`
        })
      default:
        return staff(i)
    }
  }

  const staffGuilds = new Set(deps.staffGuildIds)

  const staff = async (i: ChatInputCommandInteraction): Promise<string> => {
    // First, before reading any option: Manage Server in some other guild the bot is in must grant nothing here.
    if (i.guildId === null || !staffGuilds.has(i.guildId)) {
      log.warn({ guild: i.guildId, user: i.user.id, command: i.commandName }, 'staff command outside the staff guilds refused')
      return 'Staff commands work only in the staff server of this service.'
    }
    if (!isStaff(i, deps.staffRoleId)) return 'Only staff can use this command.'
    const sub = i.options.getSubcommand()
    if (sub === 'watch' || sub === 'unwatch') return watch(i, sub)
    if (sub === 'pardon') return pardon(i)
    const target = i.options.getUser('user')
    const codeOption = i.options.getString('code')?.trim().toUpperCase() ?? null
    if ((target === null) === (codeOption === null)) return 'Give either a user or a code.'
    if (codeOption !== null && !isCode(codeOption)) return 'A code is 4 characters, A-Z or 0-9.'
    const record = codeOption !== null ? await codes.show(codeOption) : await codes.ofUser(target!.id)
    if (sub === 'rotate') {
      const userId = target?.id ?? record?.chatUserId
      if (userId === undefined) return 'No such code.'
      const { previous, code } = await codes.rotate(userId, actorOf(i))
      deps.onHolderChanged(userId)
      const old = previous?.code ?? null
      const dm = await deps.sendDm(userId, rotatedDm(code.code, old, deps.gamePlatformName))
      return rotatedReply(userId, old, code.code, dm)
    }
    if (record === undefined || record.state === 'revoked') {
      if (target !== null) await codes.refreshUser(target.id)
      else if (record !== undefined) await codes.refresh(record.code)
      return target === null ? 'No such code.' : `<@${target.id}> has no code.`
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
    if (!result.ok) return `Nothing changed: ${describeRefusal(result.reason)}.`
    return `Done: ${sub} on code **${maskCode(record.code)}** of <@${record.chatUserId}>.`
  }

  const pardon = async (i: ChatInputCommandInteraction): Promise<string> => {
    const id = String(i.options.getInteger('infraction', true))
    if (!/^[1-9]\d{0,18}$/.test(id)) return 'An infraction id is a positive whole number (the # in /staff info).'
    const result = await deps.infractions.pardon(id, actorOf(i).name, i.options.getString('reason'))
    if (result.outcome === 'not_found') return `No infraction #${id}.`
    const of = `infraction #${id} (${result.infraction.eventType.slice(0, 64)}) of <@${result.infraction.chatUserId}>`
    if (result.outcome === 'already_pardoned') return `Nothing changed: ${of} was already pardoned by ${result.infraction.pardon?.by ?? '?'}.`
    return `Pardoned ${of}: it stays in the log and no longer counts for the safety check.`
  }

  const watch = async (i: ChatInputCommandInteraction, sub: 'watch' | 'unwatch'): Promise<string> => {
    const id = String(i.options.getInteger('platform_user_id', true))
    if (!PLATFORM_USER_ID.test(id)) return 'A game account id is a positive whole number.'
    if (sub === 'unwatch') {
      return (await deps.watchlist.remove(id)) ? `Game account ${id} is off the watchlist.` : `Game account ${id} was not on the watchlist.`
    }
    const outcome = await deps.watchlist.add({ platformUserId: id, reason: i.options.getString('reason'), addedBy: actorOf(i).name })
    return outcome === 'added' ? `Game account ${id} is on the watchlist: the safety check now flags it.` : `Game account ${id} was already on the watchlist; its reason is updated.`
  }

  const notMe = async (i: ButtonInteraction): Promise<string> => {
    const code = i.customId.slice(NOT_ME_PREFIX.length)
    const record = isCode(code) ? await codes.show(code) : undefined
    if (record === undefined || record.chatUserId !== i.user.id) return 'This button is not for you.'
    const result = await codes.act(code, 'invalidate', { source: 'discord', name: `${i.user.username} (${i.user.id}): this wasn't me` })
    if (!result.ok) return `Nothing changed: ${describeRefusal(result.reason)}.`
    return `Code **${code}** is invalidated and staff were told. Ask a staff member for a new code.`
  }

  return async (interaction) => {
    try {
      if (interaction.isChatInputCommand()) {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral })
        await interaction.editReply({ content: await user(interaction), allowedMentions: NO_MENTIONS })
      } else if (interaction.isButton() && interaction.customId.startsWith(NOT_ME_PREFIX)) {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral })
        await interaction.editReply({ content: await notMe(interaction), allowedMentions: NO_MENTIONS })
      }
    } catch (err) {
      log.error({ err, interaction: interaction.id }, 'interaction failed')
      if (interaction.isRepliable() && interaction.deferred) {
        await interaction.editReply({ content: 'Something went wrong; try again in a moment.' }).catch(() => undefined)
      }
    }
  }
}
