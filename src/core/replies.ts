/** The bot's reply texts, pure: they depend only on the code record they describe. */
import type { CodeRecord } from './codes.js'

/** What `/code` says about the user's code. */
export function codeReply(record: CodeRecord, created: boolean, gamePlatformName: string): string {
  const code = `**${record.code}**`
  switch (record.state) {
    case 'banned':
      return `Your code ${code} is banned. Contact a staff member if you think this is a mistake.`
    case 'invalidated':
      return `Your code ${code} was invalidated because another ${gamePlatformName} account tried to use it. Ask a staff member for a new code.`
    case 'revoked':
      return 'You have no code. Run /code again.'
    case 'active':
      break
  }
  const paused = record.paused ? '\nDetection is paused: games see "Detection Paused". Use /resume to show your activity again.' : ''
  if (record.platformUserId !== null) {
    return `Your code ${code} is linked to the ${gamePlatformName} account **${record.platformUsername ?? record.platformUserId}**.${paused}\nUse /unlink to remove the link.`
  }
  const lead = created ? `Your new code is ${code}.` : `Your code is ${code}.`
  return (
    `${lead} Join the game and enter it when asked to link your ${gamePlatformName} account.\n` +
    `Keep it private: whoever enters it first links their account to you.${paused}`
  )
}

/** The DM sent when a code gets bound. */
export function boundDm(code: string, platformUsername: string, platformUserId: string, gamePlatformName: string): string {
  return (
    `Your code **${code}** was just linked to the ${gamePlatformName} account **${platformUsername}** (id ${platformUserId}).\n` +
    `If this wasn't you, press the button below: the code will be invalidated and staff will be told.`
  )
}

/**
 * A code as staff see it: the first two characters and two dots (`K7••`). Staff can tell codes apart in a reply but
 * cannot type a user's code into a game, which would link their own account to that user.
 */
export function maskCode(code: string): string {
  return `${code.slice(0, 2)}••`
}

/** The DM that hands a user the code staff rotated for them (staff only ever see it masked). */
export function rotatedDm(code: string, previous: string | null, gamePlatformName: string): string {
  return (
    `Staff gave you a new code: **${code}**${previous === null ? '' : ` (your old code **${previous}** is retired)`}.\n` +
    `Join the game and enter it when asked to link your ${gamePlatformName} account. Keep it private: whoever enters it first links their account to you.`
  )
}

/** How the rotated code's DM went, as the staff reply tells it. */
export type DmOutcome = 'sent' | 'closed' | 'failed'

/** The staff reply to `/staff rotate`: both codes masked, and whether the owner got the new one by DM. */
export function rotatedReply(userId: string, previous: string | null, code: string, dm: DmOutcome): string {
  const retired = previous === null ? 'The user had no code.' : `Code **${maskCode(previous)}** retired.`
  const delivery =
    dm === 'sent'
      ? 'sent to them by DM'
      : dm === 'closed'
        ? 'NOT sent: they do not accept DMs from the bot; they can see it with /code'
        : 'NOT sent: the DM failed; they can see it with /code'
  return `${retired} New code for <@${userId}>: **${maskCode(code)}** (${delivery}).`
}

/** One infraction as staff see it in a list. */
export interface InfractionLine {
  id: string
  createdAt: Date
  eventType: string
  description: string
  issuedBy: string | null
  pardon: { by: string } | null
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** A staff view of a code (masked) with its infraction count and the most recent ones, newest first, with their ids. */
export function staffInfo(record: CodeRecord, total: number, pardoned: number, recent: readonly InfractionLine[]): string {
  const lines = [
    `Code **${maskCode(record.code)}** of <@${record.chatUserId}>`,
    `State: ${record.state}${record.paused ? ' (paused)' : ''}`,
    `Account: ${record.platformUserId === null ? 'not linked' : `${record.platformUsername ?? '?'} (${record.platformUserId})`}`,
    `Infractions: ${total}${pardoned > 0 ? ` (${pardoned} pardoned)` : ''}`,
  ]
  for (const i of recent) {
    const pardon = i.pardon === null ? '' : ` (pardoned by ${oneLine(i.pardon.by, 40)})`
    lines.push(`- #${i.id} ${i.createdAt.toISOString().slice(0, 16).replace('T', ' ')} ${oneLine(i.eventType, 64)}${i.issuedBy === null ? '' : ` by ${oneLine(i.issuedBy, 40)}`}: ${oneLine(i.description, 120)}${pardon}`)
  }
  // Not the info URL: it would carry the full code.
  if (total > recent.length) lines.push(`(${total - recent.length} older; the info endpoint lists them all)`)
  return lines.join('\n')
}
