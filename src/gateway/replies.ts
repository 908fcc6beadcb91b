/** The bot's reply texts, pure: they depend only on the code record they describe. */
import type { CodeRecord } from '../domain/codes.js'

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

/** A staff view of a code. */
export function staffInfo(record: CodeRecord, infractions: number): string {
  return [
    `Code **${record.code}** of <@${record.chatUserId}>`,
    `State: ${record.state}${record.paused ? ' (paused)' : ''}`,
    `Account: ${record.platformUserId === null ? 'not linked' : `${record.platformUsername ?? '?'} (${record.platformUserId})`}`,
    `Infractions: ${infractions}`,
  ].join('\n')
}
