/**
 * The Discord permissions the bot needs in a guild, in one table: each permission's bit from Discord's list and what
 * breaks without it. The invite URL's `permissions` integer (`presence-link discord invite-url`) and docs/discord.md
 * come from here. Pure.
 *
 * Not in the table, on purpose: Manage Webhooks (the bot never creates webhooks; webhook destinations are made by
 * the operator), Read Message History (it never reads history or replies), Ban Members (View Audit Log also brings
 * ban events and grants no power), Use Application Commands (members need it, not the bot).
 */

/** One permission the bot needs. */
export interface BotPermission {
  /** Discord's name of the permission. */
  name: string
  /** As the Discord client shows it. */
  label: string
  /** Its bit, from Discord's list of permission flags. */
  bit: bigint
  /** What breaks without it. */
  why: string
}

/** Every permission the bot needs, in bit order. */
export const BOT_PERMISSIONS: readonly BotPermission[] = [
  {
    name: 'VIEW_AUDIT_LOG',
    label: 'View Audit Log',
    bit: 1n << 7n,
    why: 'Discord sends ban and unban events only to bots with View Audit Log (or Ban Members, which would let the bot ban): without it, no ban or unban audit entries',
  },
  {
    name: 'VIEW_CHANNEL',
    label: 'View Channels',
    bit: 1n << 10n,
    why: 'message edit and delete events come only from channels the bot can see, and it must see a channel destination to post there: without it, no message audit entries from that channel, and delivery to it fails with 403 `50001: Missing Access`',
  },
  {
    name: 'SEND_MESSAGES',
    label: 'Send Messages',
    bit: 1n << 11n,
    why: 'posting log entries to a channel destination (`LOG_DESTINATION_*` set to a channel id): without it, delivery fails with 403 `50013: Missing Permissions` and the destination is disabled',
  },
  {
    name: 'EMBED_LINKS',
    label: 'Embed Links',
    bit: 1n << 14n,
    why: 'every log entry is posted as an embed, and Discord shows embeds only from senders with Embed Links',
  },
]

/** The permissions integer of `permissions`, as Discord's decimal string. */
export function permissionInteger(permissions: readonly BotPermission[]): string {
  return permissions.reduce((bits, permission) => bits | permission.bit, 0n).toString()
}

/** The permissions set in a permissions integer, among `known`, and the bits of none of them. */
export function decodePermissions(integer: string, known: readonly BotPermission[]): { names: string[]; unknownBits: string } {
  let rest = BigInt(integer)
  const names: string[] = []
  for (const permission of known) {
    if ((rest & permission.bit) === 0n) continue
    names.push(permission.name)
    rest &= ~permission.bit
  }
  return { names, unknownBits: rest.toString() }
}
