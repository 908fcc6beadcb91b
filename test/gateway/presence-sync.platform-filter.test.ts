/**
 * The game-platform filter against disguises, through the real gateway and the sandbox: a hostile presence whose
 * activities spell the platform with look-alikes, spacing, dots, a line break, a right-to-left override or a name cut
 * across the lines its block shows is read back, exactly, from callbacks and rpc.
 */
import t, { type Test } from 'tap'
import { getText } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

let g: GatewayStack

t.before(async () => {
  g = await startGatewayStack(t)
})

const DISGUISED = [
  { type: 0, name: 'R\u03BFbl\u03BFx', details: 'Greek omicrons' },
  { type: 0, name: 'RobIox', details: 'capital I' },
  { type: 0, name: 'R0bl0x', details: 'zeros' },
  { type: 0, name: '\u0280\u1D0F\u0299\u029F\u1D0Fx', details: 'small capitals' },
  { type: 3, name: 'R o b l o x', details: 'spaced' },
  { type: 5, name: 'R.o.b.l.o.x' },
  { type: 2, name: 'Spotify', details: 'Rob\nlox theme', state: 'split across a line break' },
]

t.test('disguised platform names are filtered, ordinary look-alike text is kept, invisible marks never reach games', async (t) => {
  const user = '810000000000000001'
  const code = await g.codeFor(user, 'disguiser')
  const bound = await g.bind(code, 'Disguiser_R', 41)
  t.equal(bound.status, 200)
  const ordinary = { type: 0, name: 'Pro Blox Racing' }
  const song = { type: 2, name: 'Spotify', details: 'Blind\u00ADing\u2060 Li\u200Eghts\u200F', state: 'Rob Loxley' }
  const sent = await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [...DISGUISED, ordinary, song] })
  t.equal(sent.sent, 1)
  const text = await g.callbacksUntil(code, (s) => s.includes('Pro Blox'))
  t.equal(text, `{${code};\nDisguiser_R;\nPlaying,\nPro Blox Racing;\nListening to Spotify,\nBlinding Lights,\nRob Loxley;\n}\n`)
  t.notMatch(text, /[\u00AD\u200E\u200F\u2060]/u, 'no invisible mark in the output')
})

// What both attack tests show besides the attacks: a game whose words merely contain a stem of the name, and music
// whose texts carry bidirectional controls and marks (removed from what is shown).
const ORDINARY = [
  { type: 0, name: 'Pro Blox Racing' },
  { type: 2, name: 'Spotify', details: '\u2067Blinding Lights\u2069', state: '\u202BThe Weeknd\u202C\u200F' },
]
const ORDINARY_LINES = 'Playing,\nPro Blox Racing;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\n'

async function postedAndReadBack(t: Test, user: string, username: string, robloxName: string, robloxId: number, activities: unknown[]) {
  const code = await g.codeFor(user, username)
  t.equal((await g.bind(code, robloxName, robloxId)).status, 200)
  const sent = await g.control('POST', 'presence', { user_id: user, status: 'online', activities })
  t.equal(sent.sent, 1)
  // The first write of the presence replaces "No activity detected" with whatever the filter let through.
  const callbacks = await g.callbacksUntil(code, (s) => !s.includes('No activity detected'))
  const rpc = await getText(`${g.stack.api}/rpc/${code}`)
  return { code, callbacks, rpc: rpc.text }
}

t.test('an activity drawn as the platform name by bidirectional controls is filtered; controls never reach games', async (t) => {
  const DRAWN = [
    { type: 0, name: '\u202Exolbor' }, // a right-to-left override: Discord draws "roblox"
    { type: 0, name: 'My \u202Ex0lb0r\u202C game' }, // the override inside a sentence, with zeros
    { type: 2, name: 'Spotify', details: '\u2067lox\u200FRob\u2069' }, // a right-to-left isolate and a mark swap the halves
    { type: 3, name: 'YouTube', state: '\u200Flox\u061CRob' }, // marks alone set the paragraph right to left
    { type: 0, name: 'Game', assets: { large_text: 'Rob\u05E1\u05D5x' } }, // Hebrew look-alikes, drawn reversed
  ]
  const { code, callbacks, rpc } = await postedAndReadBack(t, '810000000000000002', 'mirror', 'Mirror_R', 42, [...DRAWN, ...ORDINARY])
  t.equal(callbacks, `{${code};\nMirror_R;\n${ORDINARY_LINES}}\n`)
  t.equal(rpc, `{${code};\n${ORDINARY_LINES}}\n`)
  t.notMatch(callbacks, /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u, 'no bidirectional control or mark in the output')
})

t.test('the platform name cut across consecutive shown lines is filtered', async (t) => {
  const CUT = [
    { type: 2, name: 'Spotify', details: 'Rob', state: 'lox' }, // title and artist lines
    { type: 3, name: 'Rob', details: 'lox' }, // the label line that carries the application name, then details
    { type: 1, name: 'Twitch', details: 'I love Ro\u200D', state: '\u200Dblox so much' }, // joiners between the halves
    { type: 2, name: 'R\u03BF', details: 'bl', state: '\u03BFx \u{1F3AE}' }, // three lines, Greek omicrons, an emoji
    { type: 3, name: 'Rob', details: '\u200B', state: 'lox' }, // an empty line is left out, so these two are adjacent
  ]
  const { code, callbacks, rpc } = await postedAndReadBack(t, '810000000000000003', 'cutter', 'Cutter_R', 43, [...CUT, ...ORDINARY])
  t.equal(callbacks, `{${code};\nCutter_R;\n${ORDINARY_LINES}}\n`)
  t.equal(rpc, `{${code};\n${ORDINARY_LINES}}\n`)
})
