/**
 * Registers the slash commands: the user commands globally when COMMAND_SCOPE is global, and each guild's own list
 * (gateway/model/command-definitions.ts) in every guild the bot is in, at start and when it joins one. Every
 * guild's list is overwritten, so a /staff left from an older deployment disappears from other guilds. One guild
 * refusing (its admin invited the bot without applications.commands) must not stop the gateway for all: it gets one
 * warning naming the fix (gateway/model/discord-refusal.ts), and every other guild is served.
 */
import type { Config } from '../config.js'
import type { Logger } from '../lib/logger.js'
import { guildCommands, USER_COMMANDS } from './model/command-definitions.js'
import { commandRegistrationRefusal } from './model/discord-refusal.js'

/** The part of discord.js's application command manager registration uses. */
export interface CommandsApi {
  set(commands: never): Promise<unknown>
  set(commands: never, guildId: string): Promise<unknown>
}

/** Registers commands; never rejects (a failure is logged). */
export interface CommandRegistration {
  /** Overwrites the commands of `guildId`, or the global ones without it. */
  register(guildId?: string): Promise<void>
  /** At login: the global commands when the scope is global, then those of every guild in `guildIds`. */
  registerAll(guildIds: readonly string[]): Promise<void>
}

/** Creates the registration over the application's commands (null until the client has logged in). */
export function createCommandRegistration(deps: {
  commands: () => CommandsApi | null
  config: Pick<Config, 'staffGuildIds' | 'commandScope'>
  log: Logger
}): CommandRegistration {
  const { config, log } = deps
  const register = async (guildId?: string): Promise<void> => {
    const commands = deps.commands()
    if (commands === null) return
    try {
      if (guildId === undefined) await commands.set([...USER_COMMANDS] as never)
      else await commands.set(guildCommands(guildId, config.staffGuildIds, config.commandScope) as never, guildId)
    } catch (err) {
      const refusal = commandRegistrationRefusal(err)
      if (refusal !== null) log.warn({ guild: guildId ?? 'global', code: (err as { code?: unknown }).code }, refusal)
      else log.warn({ err: (err as Error).message, guild: guildId ?? 'global' }, 'command registration failed')
    }
  }
  return {
    register,
    async registerAll(guildIds) {
      if (config.commandScope === 'global') await register()
      await Promise.all(guildIds.map((id) => register(id)))
    },
  }
}
