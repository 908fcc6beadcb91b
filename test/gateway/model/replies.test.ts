/** Staff-facing reply texts: codes are always masked, pardons and ids are shown, the DM outcome is told. */
import t from 'tap'
import { maskCode, rotatedDm, rotatedReply, staffInfo } from '../../../src/gateway/model/replies.js'
import type { CodeRecord } from '../../../src/codes/model/codes.js'

const record = { code: 'K7QX', chatUserId: '42', state: 'active', paused: false, platformUserId: '9', platformUsername: 'Rob' } as unknown as CodeRecord

t.test('maskCode keeps two characters', async (t) => {
  for (const [code, masked] of [['K7QX', 'K7••'], ['0000', '00••'], ['ab', 'ab••']]) t.equal(maskCode(code!), masked)
})

t.test('rotatedReply masks both codes and says how the DM went', async (t) => {
  t.equal(rotatedReply('42', 'K7QX', 'Z9AB', 'sent'), 'Code **K7••** retired. New code for <@42>: **Z9••** (sent to them by DM).')
  t.equal(rotatedReply('42', null, 'Z9AB', 'closed'), 'The user had no code. New code for <@42>: **Z9••** (NOT sent: they do not accept DMs from the bot; they can see it with /code).')
  t.equal(rotatedReply('42', null, 'Z9AB', 'failed'), 'The user had no code. New code for <@42>: **Z9••** (NOT sent: the DM failed; they can see it with /code).')
  for (const dm of ['sent', 'closed', 'failed'] as const) t.notMatch(rotatedReply('42', 'K7QX', 'Z9AB', dm), /K7QX|Z9AB/)
})

t.test('rotatedDm carries the full new code to its owner', async (t) => {
  t.match(rotatedDm('Z9AB', 'K7QX', 'Roblox'), /^Staff gave you a new code: \*\*Z9AB\*\* \(your old code \*\*K7QX\*\* is retired\)\.\n/)
  t.match(rotatedDm('Z9AB', null, 'Roblox'), /^Staff gave you a new code: \*\*Z9AB\*\*\.\n/)
})

t.test('staffInfo never shows the full code, even with older infractions', async (t) => {
  const at = new Date('2026-01-02T03:04:05Z')
  const text = staffInfo(record, 7, 1, [
    { id: '12', createdAt: at, eventType: 'warn', description: 'line one\nline two', issuedBy: 'Mod', pardon: { by: 'Boss' } },
    { id: '11', createdAt: at, eventType: 'kick', description: 'x'.repeat(4000), issuedBy: null, pardon: null },
  ])
  const lines = text.split('\n')
  t.same(lines.slice(0, 4), ['Code **K7••** of <@42>', 'State: active', 'Account: Rob (9)', 'Infractions: 7 (1 pardoned)'])
  t.equal(lines[4], '- #12 2026-01-02 03:04 warn by Mod: line one line two (pardoned by Boss)')
  t.match(lines[5], /^- #11 2026-01-02 03:04 kick: x{119}…$/)
  t.equal(lines[6], '(5 older; the info endpoint lists them all)')
  t.notMatch(text, 'K7QX')
})
