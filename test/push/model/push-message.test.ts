import t from 'tap'
import {
  blocksMessage,
  CODES_PER_MESSAGE,
  codesMessage,
  MESSAGE_MAX_BYTES,
  planMessages,
  TEST_MESSAGE,
  utf8Bytes,
  type ChangedBlock,
} from '../../../src/push/model/push-message.js'

const block = (code: string, activity = 'Playing,\nMinecraft;\n'): ChangedBlock => ({ code, block: `{${code};\nBuilderman;\n${activity}}\n` })
const code = (i: number) => `A${String(i).padStart(3, '0')}`

t.test('utf8Bytes counts what Buffer.byteLength counts', async (t) => {
  for (const text of ['', 'ABCD', 'é', '日本語', '🎮 Minecraft', '\u202E', 'x'.repeat(4000), '\ud83c', 'a\ud83cb', '"\\\n']) {
    t.equal(utf8Bytes(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)))
  }
})

t.test('the wire shapes of the contract', async (t) => {
  t.same(JSON.parse(blocksMessage([block('AB12')])), { v: 1, blocks: { AB12: '{AB12;\nBuilderman;\nPlaying,\nMinecraft;\n}\n' } })
  t.equal(codesMessage(['AB12', 'CD34']), '{"v":1,"codes":["AB12","CD34"]}')
  t.equal(TEST_MESSAGE, '{"v":1,"codes":[]}')
})

t.test('planMessages', async (t) => {
  t.test('no change, no message', async (t) => {
    t.same(planMessages([]), [])
  })

  t.test('changed blocks that fit 1 kB together go out in one blocks message', async (t) => {
    const changed = [block('AB12'), block('CD34', 'Listening to Spotify,\nBlinding Lights,\nThe Weeknd;\n'), block('EF56', 'No activity detected;\n')]
    const plan = planMessages(changed)
    t.equal(plan.length, 1)
    t.equal(plan[0]!.kind, 'blocks')
    t.same(plan[0]!.codes, ['AB12', 'CD34', 'EF56'])
    t.same(Object.keys(JSON.parse(plan[0]!.message).blocks), ['AB12', 'CD34', 'EF56'])
    t.ok(utf8Bytes(plan[0]!.message) <= MESSAGE_MAX_BYTES)
  })

  t.test('blocks that would pass 1 kB become the codes only', async (t) => {
    const changed = Array.from({ length: 20 }, (_, i) => block(code(i)))
    t.ok(utf8Bytes(blocksMessage(changed)) > MESSAGE_MAX_BYTES, 'the blocks do not fit')
    const plan = planMessages(changed)
    t.same(plan, [{ kind: 'codes', message: codesMessage(changed.map((c) => c.code)), codes: changed.map((c) => c.code) }])
  })

  t.test('one block alone over 1 kB (a 4,000-character title) goes as its code', async (t) => {
    const plan = planMessages([block('AB12', `Playing,\n${'x'.repeat(4000)};\n`)])
    t.same(plan, [{ kind: 'codes', message: '{"v":1,"codes":["AB12"]}', codes: ['AB12'] }])
  })

  t.test('a message of exactly 1,024 bytes is a blocks message; one byte more is not', async (t) => {
    const base = utf8Bytes(blocksMessage([{ code: 'AB12', block: '' }]))
    const exact = { code: 'AB12', block: 'y'.repeat(MESSAGE_MAX_BYTES - base) }
    t.equal(utf8Bytes(blocksMessage([exact])), MESSAGE_MAX_BYTES)
    t.equal(planMessages([exact])[0]!.kind, 'blocks')
    t.equal(planMessages([{ code: 'AB12', block: `${exact.block}y` }])[0]!.kind, 'codes')
  })

  t.test('bytes are counted, not characters: multi-byte text tips a message over', async (t) => {
    const base = utf8Bytes(blocksMessage([{ code: 'AB12', block: '' }]))
    const chars = Math.floor((MESSAGE_MAX_BYTES - base) / 3) + 1
    const japanese = { code: 'AB12', block: '日'.repeat(chars) }
    t.ok(blocksMessage([japanese]).length <= MESSAGE_MAX_BYTES, 'fits in characters')
    t.equal(planMessages([japanese])[0]!.kind, 'codes', 'but not in bytes')
  })

  t.test('escaped characters (newlines, quotes, backslashes) are counted as sent', async (t) => {
    const hostile = { code: 'AB12', block: '"\\\n'.repeat(200) }
    const plan = planMessages([hostile])
    t.equal(plan[0]!.kind, utf8Bytes(blocksMessage([hostile])) <= MESSAGE_MAX_BYTES ? 'blocks' : 'codes')
    for (const m of plan) t.ok(utf8Bytes(m.message) <= MESSAGE_MAX_BYTES)
  })

  t.test(`codes-only messages hold ${CODES_PER_MESSAGE} codes and stay within 1 kB`, async (t) => {
    t.equal(CODES_PER_MESSAGE, 143)
    t.ok(utf8Bytes(codesMessage(Array.from({ length: CODES_PER_MESSAGE }, (_, i) => code(i)))) <= MESSAGE_MAX_BYTES)
    t.ok(utf8Bytes(codesMessage(Array.from({ length: CODES_PER_MESSAGE + 1 }, (_, i) => code(i)))) > MESSAGE_MAX_BYTES)
    const changed = Array.from({ length: 300 }, (_, i) => block(code(i)))
    const plan = planMessages(changed)
    t.same(
      plan.map((m) => m.codes.length),
      [143, 143, 14],
    )
    t.same(
      plan.flatMap((m) => m.codes),
      changed.map((c) => c.code),
      'every code once, in order',
    )
    for (const m of plan) t.ok(utf8Bytes(m.message) <= MESSAGE_MAX_BYTES)
  })
})
