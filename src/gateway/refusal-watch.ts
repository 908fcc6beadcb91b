/**
 * Discord refusing the bot for good, seen by the client: a close 4004 or 4014 ends a shard and discord.js does not
 * reconnect it, so the refusal is kept and told once; a login rejected for the token, or by a close during it, is
 * turned into a DiscordRefusedError (gateway/model/discord-refusal.ts). Other disconnects are logged and recovered
 * from by discord.js.
 */
import { Events, type Client } from 'discord.js'
import type { Logger } from '../lib/logger.js'
import { DiscordRefusedError, refusalOfClose, refusalOfLoginError, type DiscordRefusal } from './model/discord-refusal.js'

/** The refusals of one client. */
export interface RefusalWatch {
  /** Settles if Discord refuses the bot for good, at login or later (token reset: 4004). */
  refused: Promise<DiscordRefusal>
  /** Logs in and resolves once every shard is ready; rejects with DiscordRefusedError when Discord refuses the bot. */
  logIn(token: string): Promise<Client<true>>
}

/** Watches `client`'s shards for a refusal; call before logging in. */
export function watchRefusals(client: Client, log: Logger): RefusalWatch {
  let refusal: DiscordRefusal | null = null
  let onRefused: (found: DiscordRefusal) => void = () => undefined
  const refused = new Promise<DiscordRefusal>((resolve) => (onRefused = resolve))
  client.on(Events.ShardDisconnect, (event, shardId) => {
    const found = refusalOfClose(event.code)
    if (found === null) return log.warn({ shard: shardId, code: event.code }, 'shard disconnected')
    refusal ??= found
    onRefused(refusal)
  })
  const logIn = async (token: string): Promise<Client<true>> => {
    const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve))
    const loggedIn = client.login(token).then(
      () => ready,
      (err: unknown) => {
        // A 4014 during login also rejects it, with a bare "Used disallowed intents": the close code says more.
        const found = refusal ?? refusalOfLoginError(err)
        throw found === null ? err : new DiscordRefusedError(found)
      },
    )
    return Promise.race([
      loggedIn,
      refused.then((found) => {
        throw new DiscordRefusedError(found)
      }),
    ])
  }
  return { refused, logIn }
}
