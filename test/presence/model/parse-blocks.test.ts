/**
 * The reference parser of callbacks and rpc text (src/presence/model/parse-blocks.ts): every grammar vector of
 * test/fixtures/blocks.json (the cases, accepted and refused, live there only, so the Roblox module's Luau parser is held
 * to each of them too: test/clients/roblox/PresenceLink/Blocks.test.ts), and round trips through the renderer (blocks.ts).
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import {
  type ActivityInput,
  MAX_ACTIVITIES,
  keepActivity,
  renderActivityGroups,
  sanitizeText,
} from '../../../src/presence/model/activity.js'
import { type CodeView, renderCallbackBlock, renderRpcBlock } from '../../../src/presence/model/blocks.js'
import {
  type ActivityGroup,
  type CallbackBlock,
  type RpcBlock,
  parseCallbacks,
  parseRpc,
} from '../../../src/presence/model/parse-blocks.js'

const PLATFORM = 'Roblox'

const HOSTILE = [
  'Blinding Lights',
  'The Weeknd; Daft Punk',
  'line\nbreak',
  'crlf\r\nbreak',
  '{ABCD;',
  '{ABCD:',
  '}',
  '{',
  ';',
  ',',
  'ends with a comma,',
  '"Detection Paused";',
  '""',
  'No activity detected',
  '(unlinked)',
  '👍🏽',
  '🇯🇵🇫🇷',
  '👨‍👩‍👧‍👦 family',
  '🏳️‍🌈',
  `${'a'.repeat(98)}👍🏽b`,
  `${'a'.repeat(95)}👨‍👩‍👧‍👦b`,
  'x'.repeat(4000),
  '\t\ttabbed\t',
  'para\u2028graph\u2029sep',
  '\u202Eevil\u202C',
  'nul\u0000byte',
  'R\u200Boblox',
  'rObLoX',
  '',
  '   ',
  '\u200B',
  'a\uD800b',
  'builderman',
  'Minecraft',
]

// A fixed-seed generator keeps the round trip reproducible.
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function pick<T>(next: () => number, items: readonly T[]): T {
  const item = items[Math.floor(next() * items.length)]
  if (item === undefined) throw new Error('pick from an empty list')
  return item
}

function maybeText(next: () => number): string | null | undefined {
  const roll = next()
  if (roll < 0.1) return null
  if (roll < 0.15) return undefined
  return pick(next, HOSTILE)
}

function makeActivity(next: () => number): ActivityInput {
  const activity: ActivityInput = {
    type: pick(next, [0, 0, 1, 2, 2, 3, 4, 5, 6, 42]),
    name: pick(next, HOSTILE),
    details: maybeText(next),
    state: maybeText(next),
  }
  const roll = next()
  if (roll < 0.1) activity.assets = { large_text: maybeText(next), small_text: maybeText(next) }
  else if (roll < 0.2) activity.assets = { largeText: maybeText(next), smallText: maybeText(next) }
  else if (roll < 0.25) activity.assets = null
  return activity
}

const CODE_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

function makeCode(next: () => number): string {
  return Array.from({ length: 4 }, () => pick(next, [...CODE_CHARS])).join('')
}

function makeView(next: () => number): { view: CodeView; activities: ActivityInput[] } {
  const activities = Array.from({ length: Math.floor(next() * 9) }, () => makeActivity(next))
  const username = pick(next, HOSTILE)
  switch (pick(next, ['active', 'active', 'active', 'banned', 'invalidated', 'paused', 'not_linked', 'not_found'])) {
    case 'active':
      return { view: { kind: 'active', username, activity: renderActivityGroups(activities, PLATFORM) }, activities }
    case 'banned':
      return { view: { kind: 'banned', username: next() < 0.3 ? null : username }, activities }
    case 'invalidated':
      return { view: { kind: 'invalidated', username: next() < 0.3 ? null : username }, activities }
    case 'paused':
      return { view: { kind: 'paused' }, activities }
    case 'not_linked':
      return { view: { kind: 'not_linked' }, activities }
    default:
      return { view: { kind: 'not_found' }, activities }
  }
}

// The oracle spells out the line shapes again, independently of the renderer, so the round trip checks both.
function expectedGroups(activities: readonly ActivityInput[]): ActivityGroup[] {
  return activities
    .filter((a) => keepActivity(a, PLATFORM))
    .slice(0, MAX_ACTIVITIES)
    .map((a) => {
      const name = sanitizeText(a.name)
      const details = sanitizeText(a.details ?? '')
      const state = sanitizeText(a.state ?? '')
      const lines: Record<number, string[]> = {
        0: ['Playing', name],
        1: [`Streaming on ${name}`, details, state],
        2: [`Listening to ${name}`, details, state],
        3: [`Watching ${name}`, details, state],
        5: ['Competing in', name],
      }
      return { lines: (lines[a.type] ?? []).filter((line) => line !== '') }
    })
}

function expectedUsername(username: string | null): string | null {
  const text = username === null ? '' : sanitizeText(username, 32)
  return text === '' || text === '(unlinked)' ? null : text
}

const MESSAGES = {
  banned: 'This code is banned. Contact support for help.',
  invalidated: 'This code was invalidated. Contact support for help.',
  paused: 'Detection Paused',
  not_linked: 'Code not linked',
  not_found: 'Code not found',
} as const

function expectedCallbackBlock(code: string, view: CodeView, activities: readonly ActivityInput[]): CallbackBlock {
  switch (view.kind) {
    case 'active':
      return {
        code,
        marker: ';',
        username: expectedUsername(view.username) ?? '(unlinked)',
        activities: expectedGroups(activities),
      }
    case 'banned':
    case 'invalidated':
      return { code, marker: ':', username: expectedUsername(view.username), message: MESSAGES[view.kind] }
    default:
      return { code, marker: ':', username: null, message: MESSAGES[view.kind] }
  }
}

function expectedRpcBlock(code: string, view: CodeView, activities: readonly ActivityInput[]): RpcBlock {
  return { code, activities: view.kind === 'active' ? expectedGroups(activities) : [] }
}

t.test('round trip', async (t) => {
  t.test('callbacks responses parse back to their codes, usernames, messages and activity lines', async (t) => {
    const next = random(20240601)
    for (let response = 0; response < 200; response++) {
      let text = ''
      const want: CallbackBlock[] = []
      for (let block = Math.floor(next() * 12) + 1; block > 0; block--) {
        const code = makeCode(next)
        const { view, activities } = makeView(next)
        text += renderCallbackBlock(code, view)
        want.push(expectedCallbackBlock(code, view, activities))
      }
      t.strictSame(parseCallbacks(text), { ok: true, blocks: want }, `response ${response}`)
    }
  })

  t.test('rpc responses parse back to their codes and activity lines', async (t) => {
    const next = random(7)
    for (let response = 0; response < 200; response++) {
      let text = ''
      const want: RpcBlock[] = []
      for (let block = Math.floor(next() * 12) + 1; block > 0; block--) {
        const code = makeCode(next)
        const { view, activities } = makeView(next)
        text += renderRpcBlock(code, view)
        want.push(expectedRpcBlock(code, view, activities))
      }
      t.strictSame(parseRpc(text), { ok: true, blocks: want }, `response ${response}`)
    }
  })

  t.test('every hostile text as song title, artist and username survives the trip sanitized', async (t) => {
    for (const [i, text] of HOSTILE.entries()) {
      const activities: ActivityInput[] = [{ type: 2, name: 'Spotify', details: text, state: text }]
      const view: CodeView = { kind: 'active', username: text, activity: renderActivityGroups(activities, PLATFORM) }
      t.strictSame(
        parseCallbacks(renderCallbackBlock('AB12', view)),
        { ok: true, blocks: [expectedCallbackBlock('AB12', view, activities)] },
        `hostile text ${i}`,
      )
    }
  })
})

t.test('the grammar vectors (test/fixtures/blocks.json), which the Roblox module\'s Luau parser is held to too', async (t) => {
  const cases = JSON.parse(readFileSync(new URL('../../fixtures/blocks.json', import.meta.url), 'utf8')) as Array<{ name: string; kind: 'callbacks' | 'rpc'; text: string; expect: unknown }>
  t.ok(cases.length >= 100, `${cases.length} vectors`)
  t.equal(new Set(cases.map((c) => c.name)).size, cases.length, 'each vector named once')
  for (const c of cases) {
    t.test(`${c.kind}: ${c.name}`, async (t) => {
      t.strictSame(c.kind === 'rpc' ? parseRpc(c.text) : parseCallbacks(c.text), c.expect)
    })
  }
  const kinds = (c: { expect: unknown }) => {
    const e = c.expect as { ok: boolean; blocks?: Array<{ marker?: string; message?: string; activities?: unknown[] }> }
    return e.ok ? (e.blocks ?? []).map((b) => (b.marker === ':' ? b.message : b.marker === ';' ? (b.activities!.length > 0 ? 'active' : 'no activity') : 'rpc')) : ['refused']
  }
  const seen = new Set(cases.flatMap(kinds))
  for (const kind of ['active', 'no activity', 'rpc', 'refused', 'Detection Paused', 'Code not found', 'Code not linked', 'This code is banned. Contact support for help.', 'This code was invalidated. Contact support for help.']) {
    t.ok(seen.has(kind), `a vector of every block kind: ${kind}`)
  }
})
