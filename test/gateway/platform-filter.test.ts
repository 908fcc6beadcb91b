/**
 * The game-platform filter against disguises, through the real gateway and the sandbox: a hostile presence whose
 * activities spell the platform with look-alikes, spacing, dots or a line break is read back from callbacks.
 */
import t from 'tap'
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
