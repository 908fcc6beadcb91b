/** The reference parser of callbacks and rpc text, against the renderer (src/presence/model/parse-blocks.ts, blocks.ts). */
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
const SPOTIFY_AND_GAME: ActivityGroup[] = [
  { lines: ['Listening to Spotify', 'Blinding Lights', 'The Weeknd'] },
  { lines: ['Playing', 'Minecraft'] },
]

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

t.test('parseCallbacks', async (t) => {
  const cases: Array<{ name: string; text: string; want: CallbackBlock[] }> = [
    { name: 'an empty response has no blocks', text: '', want: [] },
    {
      name: 'an active block gives the username and each activity as its lines',
      text: '{AB12;\nbuilderman;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n',
      want: [
        {
          code: 'AB12',
          marker: ';',
          username: 'builderman',
          activities: SPOTIFY_AND_GAME,
        },
      ],
    },
    {
      name: 'No activity detected gives no activities',
      text: '{AB12;\nbuilderman;\nNo activity detected;\n}\n',
      want: [{ code: 'AB12', marker: ';', username: 'builderman', activities: [] }],
    },
    {
      name: 'a banned block gives the username and the message without quotes',
      text: '{AB12:\nbuilderman;\n"This code is banned. Contact support for help.";\n}\n',
      want: [
        {
          code: 'AB12',
          marker: ':',
          username: 'builderman',
          message: 'This code is banned. Contact support for help.',
        },
      ],
    },
    {
      name: '(unlinked) gives a null username',
      text: '{AB12:\n(unlinked);\n"This code was invalidated. Contact support for help.";\n}\n',
      want: [
        { code: 'AB12', marker: ':', username: null, message: 'This code was invalidated. Contact support for help.' },
      ],
    },
    {
      name: 'a status block without a username gives a null username',
      text: '{AB12:\n"Detection Paused";\n}\n{CD34:\n"Code not found";\n}\n{EF56:\n"Code not linked";\n}\n',
      want: [
        { code: 'AB12', marker: ':', username: null, message: 'Detection Paused' },
        { code: 'CD34', marker: ':', username: null, message: 'Code not found' },
        { code: 'EF56', marker: ':', username: null, message: 'Code not linked' },
      ],
    },
    {
      name: 'a line whose text ends with a comma keeps that comma',
      text: '{AB12;\nbuilderman;\nWatching YouTube,\nwait,,\nfor it,;\n}\n',
      want: [
        {
          code: 'AB12',
          marker: ';',
          username: 'builderman',
          activities: [{ lines: ['Watching YouTube', 'wait,', 'for it,'] }],
        },
      ],
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.strictSame(parseCallbacks(c.text), { ok: true, blocks: c.want })
    })
  }
})

t.test('parseRpc', async (t) => {
  const cases: Array<{ name: string; text: string; want: RpcBlock[] }> = [
    { name: 'an empty response has no blocks', text: '', want: [] },
    { name: 'an empty block gives no activities', text: '{AB12;\n}\n', want: [{ code: 'AB12', activities: [] }] },
    {
      name: 'a block gives each activity as its lines',
      text: '{AB12;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n{CD34;\n}\n',
      want: [
        {
          code: 'AB12',
          activities: SPOTIFY_AND_GAME,
        },
        { code: 'CD34', activities: [] },
      ],
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.strictSame(parseRpc(c.text), { ok: true, blocks: c.want })
    })
  }
})

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

const GOOD = '{AB12;\nbuilderman;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\n}\n'

t.test('parseCallbacks rejects', async (t) => {
  const cases: Array<{ name: string; text: string; line: number; error: string }> = [
    {
      name: 'a response cut inside a line',
      text: GOOD.slice(0, -3),
      line: 5,
      error: 'the last line does not end with a newline (truncated response?)',
    },
    {
      name: 'a response cut before the closing brace',
      text: '{AB12;\nbuilderman;\nNo activity detected;\n',
      line: 4,
      error: 'unexpected end of input: the block opened on line 1 is not closed',
    },
    {
      name: 'a second block cut after its username',
      text: `${GOOD}{CD34;\nbuilderman;\n`,
      line: 9,
      error: 'unexpected end of input: the block opened on line 7 is not closed',
    },
    {
      name: 'a response cut inside an activity',
      text: '{AB12;\nbuilderman;\nListening to Spotify,\n',
      line: 4,
      error: 'unexpected end of input: the block opened on line 1 is not closed',
    },
    {
      name: 'a header alone',
      text: '{AB12;\n',
      line: 2,
      error: 'unexpected end of input: the block opened on line 1 is not closed',
    },
    {
      name: 'CRLF line ends',
      text: GOOD.replaceAll('\n', '\r\n'),
      line: 1,
      error: 'carriage return found: lines end with \\n only',
    },
    {
      name: 'a lowercase code',
      text: GOOD.replace('AB12', 'ab12'),
      line: 1,
      error: 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :',
    },
    {
      name: 'a 5-character code',
      text: GOOD.replace('AB12', 'AB123'),
      line: 1,
      error: 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :',
    },
    {
      name: 'a header without a marker',
      text: '{AB12\n"Code not found";\n}\n',
      line: 1,
      error: 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :',
    },
    {
      name: 'a } alone at the top',
      text: '}\n',
      line: 1,
      error: 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :',
    },
    {
      name: 'a blank line between blocks',
      text: `${GOOD}\n${GOOD}`,
      line: 7,
      error: 'expected a block header: { then a 4-character code of A-Z 0-9, then ; or :',
    },
    {
      name: 'a block header injected as an activity line',
      text: '{AB12;\nbuilderman;\nListening to Spotify,\n{ABCD;\n}\n',
      line: 4,
      error: 'activity line contains a character that text never contains',
    },
    {
      name: 'an activity line without , or ;',
      text: '{AB12;\nbuilderman;\nPlaying,\nMinecraft\n}\n',
      line: 4,
      error: 'activity line must end with , or ;',
    },
    {
      name: 'a block closed while an activity is open',
      text: '{AB12;\nbuilderman;\nPlaying,\nMinecraft,\n}\n',
      line: 5,
      error: 'block closed inside an activity: the line before ends with , instead of ;',
    },
    {
      name: 'an empty activity line',
      text: '{AB12;\nbuilderman;\nPlaying,\n;\n}\n',
      line: 4,
      error: 'empty activity line',
    },
    {
      name: 'a normal block with no activity line at all',
      text: '{AB12;\nbuilderman;\n}\n',
      line: 3,
      error: 'expected activity lines or "No activity detected;" in block {AB12',
    },
    {
      name: 'a normal block without a username',
      text: '{AB12;\n}\n',
      line: 2,
      error: 'expected the username line before }',
    },
    {
      name: 'a username ending with ,',
      text: '{AB12;\nbuilderman,\nNo activity detected;\n}\n',
      line: 2,
      error: 'username line must end with ;',
    },
    { name: 'an empty username', text: '{AB12;\n;\nNo activity detected;\n}\n', line: 2, error: 'empty username' },
    {
      name: 'a username with a quote',
      text: '{AB12;\nbuild"erman;\nNo activity detected;\n}\n',
      line: 2,
      error: 'username contains a character that text never contains',
    },
    {
      name: 'a username with a control character',
      text: '{AB12;\nbuild\u0000erman;\nNo activity detected;\n}\n',
      line: 2,
      error: 'username contains a character that text never contains',
    },
    {
      name: 'more lines after No activity detected',
      text: '{AB12;\nbuilderman;\nNo activity detected;\nPlaying,\nMinecraft;\n}\n',
      line: 4,
      error: 'expected } to close block {AB12',
    },
    {
      name: 'a status block with nothing in it',
      text: '{AB12:\n}\n',
      line: 2,
      error: 'expected a quoted message line before }',
    },
    {
      name: 'a status block with an unquoted message',
      text: '{AB12:\nbuilderman;\nThis code is banned.;\n}\n',
      line: 3,
      error: 'expected a quoted message line: "message";',
    },
    {
      name: 'a status block whose message lacks its ;',
      text: '{AB12:\n"Code not found"\n}\n',
      line: 2,
      error: 'expected a quoted message line: "message";',
    },
    { name: 'an empty message', text: '{AB12:\n"";\n}\n', line: 2, error: 'empty message' },
    {
      name: 'a status block with a username but no message',
      text: '{AB12:\nbuilderman;\n}\n',
      line: 3,
      error: 'expected a quoted message line: "message";',
    },
    {
      name: 'a line after the message',
      text: '{AB12:\n"Code not found";\nbuilderman;\n}\n',
      line: 3,
      error: 'expected } to close block {AB12',
    },
    {
      name: 'a closing brace with trailing text',
      text: '{AB12:\n"Code not found";\n} \n',
      line: 3,
      error: 'expected } to close block {AB12',
    },
  ]
  for (const c of cases) {
    t.test(`${c.name} at line ${c.line}`, async (t) => {
      t.strictSame(parseCallbacks(c.text), { ok: false, line: c.line, error: c.error })
    })
  }
})

t.test('parseRpc rejects', async (t) => {
  const cases: Array<{ name: string; text: string; line: number; error: string }> = [
    { name: 'a : marker', text: '{AB12:\n}\n', line: 1, error: 'rpc blocks always use ; after the code' },
    {
      name: 'a response cut inside a line',
      text: '{AB12;\n}',
      line: 2,
      error: 'the last line does not end with a newline (truncated response?)',
    },
    {
      name: 'a response cut inside an activity',
      text: '{AB12;\n}\n{CD34;\nPlaying,\n',
      line: 5,
      error: 'unexpected end of input: the block opened on line 3 is not closed',
    },
    {
      name: 'a block closed while an activity is open',
      text: '{AB12;\nPlaying,\n}\n',
      line: 3,
      error: 'block closed inside an activity: the line before ends with , instead of ;',
    },
    {
      name: 'a quoted message line',
      text: '{AB12;\n"Code not found";\n}\n',
      line: 2,
      error: 'activity line contains a character that text never contains',
    },
    {
      name: 'CRLF line ends',
      text: '{AB12;\r\n}\r\n',
      line: 1,
      error: 'carriage return found: lines end with \\n only',
    },
    {
      name: 'a callbacks response',
      text: '{AB12:\n"Code not found";\n}\n',
      line: 1,
      error: 'rpc blocks always use ; after the code',
    },
  ]
  for (const c of cases) {
    t.test(`${c.name} at line ${c.line}`, async (t) => {
      t.strictSame(parseRpc(c.text), { ok: false, line: c.line, error: c.error })
    })
  }
})

t.test('the shared table of block cases (test/fixtures/blocks.json, also run by the Roblox module\'s Lua parser)', async (t) => {
  const { readFileSync } = await import('node:fs')
  const cases = JSON.parse(readFileSync(new URL('../../fixtures/blocks.json', import.meta.url), 'utf8')) as Array<{ name: string; kind: string; text: string; expect: unknown }>
  t.ok(cases.length >= 40)
  for (const c of cases) t.same(c.kind === 'rpc' ? parseRpc(c.text) : parseCallbacks(c.text), c.expect, c.name)
})
