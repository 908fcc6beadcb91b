/*
 * Every fake Discord REST route the sandbox serves, relative to `/api/v10` (or `/api/v9`), gathered from the resource
 * files of this folder: what discord.js's REST client (@discordjs/rest) calls for this service.
 */
import { applicationRoutes } from './application-commands.js'
import { channelRoutes } from './channel-messages.js'
import { gatewayRoutes } from './gateway-bot.js'
import { guildRoutes } from './guilds.js'
import { interactionCallbackRoutes } from './interaction-callbacks.js'
import type { RestRoute } from './rest-route.js'
import { userRoutes } from './users.js'
import { webhookRoutes } from './webhooks.js'

/** Every Discord REST route the sandbox serves (paths are relative to `/api/v10`). */
export function restRoutes(): RestRoute[] {
  return [
    ...gatewayRoutes(),
    ...userRoutes(),
    ...applicationRoutes(),
    ...interactionCallbackRoutes(),
    ...webhookRoutes(),
    ...channelRoutes(),
    ...guildRoutes(),
  ]
}
