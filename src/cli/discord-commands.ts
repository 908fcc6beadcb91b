/**
 * `presence-link discord invite-url`: prints the OAuth2 URL that adds the bot to a server with the scopes and the
 * permissions it needs (src/gateway/model/bot-permissions.ts). The application id comes from --application-id or from
 * DISCORD_TOKEN; the token itself is never printed. Touches neither MySQL, Redis nor Discord.
 */
import { BOT_PERMISSIONS, permissionInteger } from '../gateway/model/bot-permissions.js'
import { applicationIdFromToken, INVITE_SCOPES, inviteUrl, isDiscordId } from '../gateway/model/invite-url.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { usage, type CommandOutput } from './command.js'

const WHERE_ID = 'the Application ID on the General Information page of the application in the Discord Developer Portal'

/** Prints what the invite grants, then the invite URL as the last line. */
export async function inviteUrlCommand(ctx: ProcessContext, applicationIdFlag: string | undefined): Promise<CommandOutput> {
  let applicationId: string
  if (applicationIdFlag !== undefined) {
    if (!isDiscordId(applicationIdFlag.trim())) return usage(`--application-id must be a Discord id (17 to 20 digits): ${WHERE_ID}`)
    applicationId = applicationIdFlag.trim()
  } else if (ctx.config.discordToken === '') {
    return usage(`DISCORD_TOKEN is not set: pass --application-id ID (${WHERE_ID})`)
  } else {
    const fromToken = applicationIdFromToken(ctx.config.discordToken)
    if (fromToken === null) return usage(`DISCORD_TOKEN does not look like a bot token (its first part is not a base64 id): pass --application-id ID (${WHERE_ID})`)
    applicationId = fromToken
  }
  const permissions = permissionInteger(BOT_PERMISSIONS)
  return {
    lines: [
      `scopes: ${INVITE_SCOPES.join(', ')}; permissions ${permissions}: ${BOT_PERMISSIONS.map((p) => p.label).join(', ')}`,
      inviteUrl(applicationId, permissions),
    ],
    exitCode: 0,
  }
}
