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

/** One infraction as staff see it in a list. */
export interface InfractionLine {
  createdAt: Date
  eventType: string
  description: string
  issuedBy: string | null
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** A staff view of a code with its infraction count and the most recent ones, newest first. */
export function staffInfo(record: CodeRecord, total: number, recent: readonly InfractionLine[]): string {
  const lines = [
    `Code **${record.code}** of <@${record.chatUserId}>`,
    `State: ${record.state}${record.paused ? ' (paused)' : ''}`,
    `Account: ${record.platformUserId === null ? 'not linked' : `${record.platformUsername ?? '?'} (${record.platformUserId})`}`,
    `Infractions: ${total}`,
  ]
  for (const i of recent) {
    lines.push(`- ${i.createdAt.toISOString().slice(0, 16).replace('T', ' ')} ${oneLine(i.eventType, 64)}${i.issuedBy === null ? '' : ` by ${oneLine(i.issuedBy, 40)}`}: ${oneLine(i.description, 120)}`)
  }
  if (total > recent.length) lines.push(`(${total - recent.length} older; see GET /api/v1/info/${record.code})`)
  return lines.join('\n')
}
