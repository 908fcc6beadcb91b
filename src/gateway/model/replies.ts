/**
 * The bot's reply and DM texts, pure: every text the chat side sends is a template in REPLIES (documented, each with
 * when it is sent, in docs/replies.md; a test checks the two agree), filled by the functions below or by the command
 * handler. Placeholders are `{name}`; no template contains a literal brace.
 */
import { describeRefusal, type ActionRefusal, type CodeRecord } from '../../codes/model/codes.js'
import { describeShare, type ShareSetting } from '../../presence/model/share.js'

/** Every reply and DM template, by key. */
export const REPLIES = Object.freeze({
  codeNew:
    'Your new code is **{code}**. Join the game and enter it when asked to link your {platform} account.\n' +
    'Keep it private: whoever enters it first links their account to you.{paused}',
  codeShown:
    'Your code is **{code}**. Join the game and enter it when asked to link your {platform} account.\n' +
    'Keep it private: whoever enters it first links their account to you.{paused}',
  codeLinked: 'Your code **{code}** is linked to the {platform} account **{username}**.{paused}\nUse /unlink to remove the link.',
  codePausedNote: '\nDetection is paused: games see "Detection Paused". Use /resume to show your activity again.',
  codeBanned:
    'Your code **{code}** is banned: games show it as banned and it cannot link an account. Only staff can lift a ban; ' +
    'contact a staff member if you think this is a mistake.',
  codeInvalidated:
    'Your code **{code}** is invalidated: it can no longer link an account (this happens when another {platform} account ' +
    'tries to use it, or when you press "This wasn\'t me"). Use /unlink to retire it, then /code gives you a new one.',
  codeRetired: 'You have no code. Run /code again.',
  noCode: 'You have no code yet. Use /code to get one.',
  nothingChanged: 'Nothing changed: {reason}.',
  paused: 'Detection paused: games now see "Detection Paused". Use /resume to undo.',
  resumed: 'Detection resumed: games see your activity again.',
  shared: 'Games now see {what}.{paused}',
  sharedUnchanged: 'Nothing changed: games already see {what}.{paused}',
  sharePausedNote: '\nDetection is paused, so for now they see "Detection Paused"; /resume shows what you chose.',
  forgetAsk:
    'This erases what the service keeps about you, for good:\n' +
    '- {codes}{link}\n' +
    '- your share setting and pause state, and your live activity wherever it is held\n' +
    "- the games' push subscriptions for your code\n" +
    '- your name on your own actions in the logs, and the link between you and {infractions} infraction(s) (the games keep those records, without you)\n' +
    'Games then see "Code not found". It cannot be undone; /code afterwards gives you a new code. Press **Erase my data** to go on.',
  forgetAskCodes: 'your code **{code}**',
  forgetAskNoLiveCode: 'the record of your retired code(s) ({count})',
  forgetAskLink: ' and its link to the {platform} account **{username}** (id {platformUserId})',
  myDataNothing: 'The service keeps nothing about you: you have no code and no infraction.',
  forgetNothing: 'The service keeps nothing about you: there is nothing to erase.',
  forgetDone: 'Done: your data is erased ({count} code(s)). Games see "Code not found" for it now. /code gives you a new code if you want one.',
  forgetCancelled: 'Nothing was erased.',
  unlinked: 'Your code **{code}** is retired{link}. Use /code to get a new one.',
  unlinkedLink: ' and its link to **{username}** removed',
  unlinkBanned:
    'Nothing changed: your code **{code}** is banned, and a banned code cannot be retired or traded for a new one. ' +
    'Only staff can lift a ban; contact a staff member if you think this is a mistake.',
  notForYou: 'This button is not for you.',
  notMeDone:
    'Code **{code}** is invalidated and staff were told: no game account can use it now. ' +
    'Use /unlink to retire it, then /code gives you a new one.',
  notMeAlready: 'Nothing changed: code **{code}** is already invalidated. Use /unlink to retire it, then /code gives you a new one.',
  notMeBanned: 'Nothing changed: code **{code}** is banned, so no game account can use it. Contact a staff member if you think the ban is a mistake.',
  notMeRetired: 'Nothing changed: code **{code}** is already retired. /code shows your current code.',
  failed: 'Something went wrong; try again in a moment.',
  staffWrongGuild: 'Staff commands work only in the staff server of this service.',
  staffOnly: 'Only staff can use this command.',
  unknownCommand:
    'Unknown command /{name}: this bot has /code, /pause, /resume and /unlink (and /staff for staff). ' +
    'A command removed from the bot can stay in Discord\'s list for a while; it does nothing.',
  staffUserOrCode: 'Give either a user or a code.',
  staffBadCode: 'A code is 4 characters, A-Z or 0-9.',
  staffNoSuchCode: 'No such code.',
  staffUserHasNoCode: '<@{userId}> has no code.',
  staffDone: 'Done: {action} on code **{masked}** of <@{userId}>.',
  rotated: '{retired} New code for <@{userId}>: **{masked}** ({delivery}).',
  rotatedRetired: 'Code **{masked}** retired.',
  rotatedNoPrevious: 'The user had no code.',
  rotatedDmSent: 'sent to them by DM',
  rotatedDmClosed: 'NOT sent: they do not accept DMs from the bot; they can see it with /code',
  rotatedDmFailed: 'NOT sent: the DM failed; they can see it with /code',
  infoHeader: 'Code **{masked}** of <@{userId}>',
  infoState: 'State: {state}{paused}',
  infoStatePaused: ' (paused)',
  infoAccount: 'Account: {username} ({platformUserId})',
  infoNotLinked: 'Account: not linked',
  infoInfractions: 'Infractions: {total}{pardoned}',
  infoPardonedCount: ' ({count} pardoned)',
  infoLine: '- #{id} {time} {eventType}{by}: {description}{pardon}',
  infoLineBy: ' by {issuedBy}',
  infoLinePardon: ' (pardoned by {by})',
  infoOlder: '({count} older; the info endpoint lists them all)',
  staffForgetUnconfirmed: 'Nothing was erased: set confirm to True to erase the data of <@{userId}>.',
  staffForgetNothing: 'The service keeps nothing about <@{userId}>: nothing to erase.',
  staffForgotten: 'Erased the data of <@{userId}> ({count} code(s), {infractions} infraction(s) unlinked). A data_erased moderation entry names you.',
  pardonBadId: 'An infraction id is a positive whole number (the # in /staff info).',
  pardonNotFound: 'No infraction #{id}.',
  pardonAlready: 'Nothing changed: infraction #{id} ({eventType}) of <@{userId}> was already pardoned by {by}.',
  pardoned: 'Pardoned infraction #{id} ({eventType}) of <@{userId}>: it stays in the log and no longer counts for the safety check.',
  watchBadId: 'A game account id is a positive whole number.',
  watched: 'Game account {id} is on the watchlist: the safety check now flags it.',
  watchUpdated: 'Game account {id} was already on the watchlist; its reason is updated.',
  unwatched: 'Game account {id} is off the watchlist.',
  notWatched: 'Game account {id} was not on the watchlist.',
  boundDm:
    'Your code **{code}** was just linked to the {platform} account **{username}** (id {platformUserId}).\n' +
    "If this wasn't you, press the button below: the code will be invalidated and staff will be told; then /unlink and /code give you a new one.",
  rotatedDm:
    'Staff gave you a new code: **{code}**{previous}.\n' +
    'Join the game and enter it when asked to link your {platform} account. Keep it private: whoever enters it first links their account to you.',
  rotatedDmPrevious: ' (your old code **{previous}** is retired)',
} as const)

/** A key of REPLIES. */
export type ReplyKey = keyof typeof REPLIES

/** Fills a template's `{name}` placeholders; a placeholder without a value is a bug and throws. */
export function reply(key: ReplyKey, values: Record<string, string | number> = {}): string {
  return REPLIES[key].replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new TypeError(`reply ${key}: no value for {${name}}`)
    return String(value)
  })
}

/** "Nothing changed: ..." for a refused action. */
export function refusedReply(reason: ActionRefusal): string {
  return reply('nothingChanged', { reason: describeRefusal(reason) })
}

/** What `/code` says about the user's code. */
export function codeReply(record: CodeRecord, created: boolean, gamePlatformName: string): string {
  const code = record.code
  const platform = gamePlatformName
  switch (record.state) {
    case 'banned':
      return reply('codeBanned', { code })
    case 'invalidated':
      return reply('codeInvalidated', { code, platform })
    case 'revoked':
      return reply('codeRetired')
    case 'active':
      break
  }
  const paused = record.paused ? REPLIES.codePausedNote : ''
  if (record.platformUserId !== null) {
    return reply('codeLinked', { code, platform, username: record.platformUsername ?? record.platformUserId, paused })
  }
  return reply(created ? 'codeNew' : 'codeShown', { code, platform, paused })
}

/** The reply to `/share`: what games now see (and that a pause still hides it). */
export function shareReply(share: ShareSetting, changed: boolean, paused: boolean): string {
  return reply(changed ? 'shared' : 'sharedUnchanged', { what: describeShare(share), paused: paused ? REPLIES.sharePausedNote : '' })
}

/** What `/forget` asks before erasing: what it will erase. */
export function forgetAsk(codes: readonly CodeRecord[], infractions: number, gamePlatformName: string): string {
  const live = codes.find((c) => c.state !== 'revoked')
  const bound = live?.platformUserId != null ? live : undefined
  return reply('forgetAsk', {
    codes: live === undefined ? reply('forgetAskNoLiveCode', { count: codes.length }) : reply('forgetAskCodes', { code: live.code }),
    link:
      bound === undefined
        ? ''
        : reply('forgetAskLink', { platform: gamePlatformName, username: bound.platformUsername ?? '?', platformUserId: bound.platformUserId! }),
    infractions,
  })
}

/** The DM sent when a code gets bound. */
export function boundDm(code: string, platformUsername: string, platformUserId: string, gamePlatformName: string): string {
  return reply('boundDm', { code, platform: gamePlatformName, username: platformUsername, platformUserId })
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
  return reply('rotatedDm', { code, previous: previous === null ? '' : reply('rotatedDmPrevious', { previous }), platform: gamePlatformName })
}

/** How the rotated code's DM went, as the staff reply tells it. */
export type DmOutcome = 'sent' | 'closed' | 'failed'

const DM_DELIVERY = { sent: 'rotatedDmSent', closed: 'rotatedDmClosed', failed: 'rotatedDmFailed' } as const

/** The staff reply to `/staff rotate`: both codes masked, and whether the owner got the new one by DM. */
export function rotatedReply(userId: string, previous: string | null, code: string, dm: DmOutcome): string {
  const retired = previous === null ? reply('rotatedNoPrevious') : reply('rotatedRetired', { masked: maskCode(previous) })
  return reply('rotated', { retired, userId, masked: maskCode(code), delivery: reply(DM_DELIVERY[dm]) })
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
    reply('infoHeader', { masked: maskCode(record.code), userId: record.chatUserId }),
    reply('infoState', { state: record.state, paused: record.paused ? REPLIES.infoStatePaused : '' }),
    record.platformUserId === null
      ? reply('infoNotLinked')
      : reply('infoAccount', { username: record.platformUsername ?? '?', platformUserId: record.platformUserId }),
    reply('infoInfractions', { total, pardoned: pardoned > 0 ? reply('infoPardonedCount', { count: pardoned }) : '' }),
  ]
  for (const i of recent) {
    lines.push(
      reply('infoLine', {
        id: i.id,
        time: i.createdAt.toISOString().slice(0, 16).replace('T', ' '),
        eventType: oneLine(i.eventType, 64),
        by: i.issuedBy === null ? '' : reply('infoLineBy', { issuedBy: oneLine(i.issuedBy, 40) }),
        description: oneLine(i.description, 120),
        pardon: i.pardon === null ? '' : reply('infoLinePardon', { by: oneLine(i.pardon.by, 40) }),
      }),
    )
  }
  // Not the info URL: it would carry the full code.
  if (total > recent.length) lines.push(reply('infoOlder', { count: total - recent.length }))
  return lines.join('\n')
}
