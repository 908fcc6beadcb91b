/**
 * What `/mydata` and `presence-link users show` tell a chat user about what the service keeps, pure: the facts in,
 * the text and the JSON export out, with when each kind of data is deleted. The facts are read by
 * src/privacy/my-data.ts.
 */
import type { CodeRecord } from '../../codes/model/codes.js'
import { describeShare, type ShareSetting } from '../../presence/model/share.js'

/** One game key's use of the user's code in the window. */
export interface KeyUse {
  /** The API key's name (a game server's). */
  key: string
  /** Log entries it sent naming the code (log/*, and the bind conflict of a bind). */
  logEntries: number
  /** Its servers subscribed to the code's pushes now. */
  pushServers: number
}

/** Everything the service keeps about one chat user, as read for them. */
export interface MyData {
  chatUserId: string
  /** The live code, if any. */
  code: (CodeRecord & { share: ShareSetting; createdAt: Date; boundAt: Date | null }) | null
  /** Retired codes still on record under the user (revoked, kept as tombstones so they are never reissued). */
  retiredCodes: string[]
  /** Whether a live presence of the user is held now (and what of it games see). */
  presenceHeld: boolean
  /** Keys that used the code in the last `windowHours`, most uses first. */
  keyUses: KeyUse[]
  windowHours: number
  infractions: { total: number; latest: { at: Date; eventType: string; description: string; issuedBy: string | null } | null }
  /** The deployment's retention settings. */
  retention: { logRetentionDays: number; messageRetentionDays: number; forgetAfterLeaveDays: number }
}

const MAX_REPLY = 2000

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ')

/** When each kind of data is deleted, in words (the same lines for everyone of a deployment). */
export function deletionLines(r: MyData['retention']): string[] {
  const logs = r.logRetentionDays === 0 ? 'kept until an operator deletes them (no log retention is set)' : `deleted ${r.logRetentionDays} days after they were logged`
  return [
    `- Your code, its link, your share setting and pause state: when you run /forget; or ${r.forgetAfterLeaveDays} days after you leave every server of this service, unless you come back.`,
    '- Your live activity: as soon as you go offline, leave every server of this service, run /pause, /share show:nothing, /unlink or /forget; it is never written to disk.',
    `- Log entries that name your code: ${logs}; /forget removes your name from them at once.`,
    '- Infractions: kept as the games\' moderation records while the game keeps them; /forget cuts their link to you.',
    `- Recent messages in the servers' logs: ${r.messageRetentionDays} days.`,
  ]
}

/** The `/mydata` text (Discord markdown; each line short enough for one reply of 2,000 characters). */
export function renderMyData(d: MyData): string {
  const lines = ['**What this service keeps about you**']
  if (d.code === null) lines.push('Code: none (use /code to get one).')
  else {
    const c = d.code
    const state = c.state === 'active' ? (c.platformUserId === null ? 'active, not linked yet' : 'active, linked') : c.state
    lines.push(`Code: **${c.code}** (${state}; issued ${day(c.createdAt)} UTC)`)
    lines.push(c.platformUserId === null ? 'Game account: not linked' : `Game account: ${c.platformUsername ?? '?'} (id ${c.platformUserId})${c.boundAt === null ? '' : `, linked ${day(c.boundAt)} UTC`}`)
    lines.push(`Share setting: ${c.share}: games see ${describeShare(c.share)}.`)
    lines.push(`Detection: ${c.paused ? 'paused (games see "Detection Paused")' : 'on'}; live activity held now: ${d.presenceHeld ? 'yes' : 'no'}.`)
  }
  if (d.retiredCodes.length > 0) lines.push(`Retired codes on record: ${d.retiredCodes.join(', ')}.`)
  if (d.keyUses.length === 0) lines.push(`Game keys that used your code in the last ${d.windowHours} h: none.`)
  else {
    lines.push(`Game keys that used your code in the last ${d.windowHours} h:`)
    for (const u of d.keyUses.slice(0, 10)) lines.push(`- ${oneLine(u.key, 64)}: ${u.logEntries} log entr${u.logEntries === 1 ? 'y' : 'ies'}, ${u.pushServers} server(s) subscribed to its pushes`)
    if (d.keyUses.length > 10) lines.push(`- and ${d.keyUses.length - 10} more (see the export)`)
  }
  lines.push('Reads of callbacks, rpc and streams carry no key: which games read your code there is not recorded.')
  const latest = d.infractions.latest
  lines.push(
    latest === null
      ? `Infractions: ${d.infractions.total}.`
      : `Infractions: ${d.infractions.total}; latest ${day(latest.at)} UTC, ${oneLine(latest.eventType, 64)}${latest.issuedBy === null ? '' : ` by ${oneLine(latest.issuedBy, 40)}`}: ${oneLine(latest.description, 200)}`,
  )
  lines.push('**When it is deleted**', ...deletionLines(d.retention))
  lines.push('The attached mydata.json holds the same. /forget erases it.')
  const text = lines.join('\n')
  // One Discord message holds 2,000 characters; the export holds everything.
  return text.length <= MAX_REPLY ? text : `${text.slice(0, MAX_REPLY - 1)}…`
}

/** The JSON export of the same facts (the attachment of `/mydata`, `users show --json`); stable field names. */
export function exportMyData(d: MyData): Record<string, unknown> {
  const c = d.code
  return {
    chat_user_id: d.chatUserId,
    code:
      c === null
        ? null
        : {
            code: c.code,
            state: c.state,
            paused: c.paused,
            share: c.share,
            created_at: c.createdAt.toISOString(),
            game_account: c.platformUserId === null ? null : { username: c.platformUsername, id: c.platformUserId, linked_at: c.boundAt?.toISOString() ?? null },
          },
    retired_codes: d.retiredCodes,
    live_activity_held: d.presenceHeld,
    key_uses: { window_hours: d.windowHours, keys: d.keyUses.map((u) => ({ key: u.key, log_entries: u.logEntries, push_servers: u.pushServers })), public_reads_recorded: false },
    infractions: {
      total: d.infractions.total,
      latest:
        d.infractions.latest === null
          ? null
          : { at: d.infractions.latest.at.toISOString(), event_type: d.infractions.latest.eventType, description: d.infractions.latest.description, issued_by: d.infractions.latest.issuedBy },
    },
    deletion: deletionLines(d.retention).map((l) => l.slice(2)),
  }
}
