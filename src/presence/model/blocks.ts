/** Rendering the callbacks and rpc blocks, pure: one block per requested code (the grammar is in parse-blocks.ts). */
import { sanitizeText } from './activity.js'
import { isCode } from '../../codes/model/codes.js'

/** What the service knows about one requested code when it renders a block. */
export type CodeView =
  | { kind: 'active'; username: string; activity: string } // activity = output of renderActivityGroups ('' = none)
  | { kind: 'banned'; username: string | null }
  | { kind: 'invalidated'; username: string | null }
  | { kind: 'paused' }
  | { kind: 'not_linked' }
  | { kind: 'not_found' }

/** The fixed message lines of the blocks; the quoted ones carry their double quotes. */
export const BlockMessage: {
  readonly banned: string
  readonly invalidated: string
  readonly paused: string
  readonly notFound: string
  readonly notLinked: string
  readonly noActivity: string
} = Object.freeze({
  banned: '"This code is banned. Contact support for help."',
  invalidated: '"This code was invalidated. Contact support for help."',
  paused: '"Detection Paused"',
  notFound: '"Code not found"',
  notLinked: '"Code not linked"',
  noActivity: 'No activity detected',
})

/** The username line's text when no account is known; parentheses cannot occur in a Roblox username. */
export const UNLINKED_USERNAME = '(unlinked)'

const USERNAME_MAX_LENGTH = 32

function assertCode(code: string): void {
  // Codes reach here only after parseCodesPath; anything else would break the block grammar, so it is a bug.
  if (!isCode(code)) throw new TypeError(`not a code: ${JSON.stringify(code)}`)
}

// Stored usernames are validated to this already; sanitizing would return them unchanged, so skip the work.
const PLAIN_USERNAME = /^[A-Za-z0-9_]{1,32}$/

function usernameLine(username: string | null): string {
  const text = username === null ? '' : PLAIN_USERNAME.test(username) ? username : sanitizeText(username, USERNAME_MAX_LENGTH)
  // A name that sanitizes to nothing would leave a bare ';' that reads as a missing line.
  return `${text === '' ? UNLINKED_USERNAME : text};\n`
}

function statusBlock(code: string, lines: string): string {
  return `{${code}:\n${lines}}\n`
}

/** Renders one callbacks block: `;` with username and activity for an active code, else `:` with a status message. */
export function renderCallbackBlock(code: string, view: CodeView): string {
  assertCode(code)
  switch (view.kind) {
    case 'active': {
      const activity = view.activity === '' ? `${BlockMessage.noActivity};\n` : view.activity
      return `{${code};\n${usernameLine(view.username)}${activity}}\n`
    }
    case 'banned':
      return statusBlock(code, `${usernameLine(view.username)}${BlockMessage.banned};\n`)
    case 'invalidated':
      return statusBlock(code, `${usernameLine(view.username)}${BlockMessage.invalidated};\n`)
    case 'paused':
      return statusBlock(code, `${BlockMessage.paused};\n`)
    case 'not_linked':
      return statusBlock(code, `${BlockMessage.notLinked};\n`)
    case 'not_found':
      return statusBlock(code, `${BlockMessage.notFound};\n`)
  }
}

/** Renders one rpc block: the activity groups of an active code, an empty block in every other case. */
export function renderRpcBlock(code: string, view: CodeView): string {
  assertCode(code)
  const activity = view.kind === 'active' ? view.activity : ''
  return `{${code};\n${activity}}\n`
}
