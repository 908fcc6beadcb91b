/** The code domain: format, issuance from random bytes, the bind table and the staff and user actions (src/codes/model/codes.ts). */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { applyAction, CODE_ALPHABET, codeFromBytes, decideBind, ISSUE_ALPHABET, isCode, LOOK_ALIKES, typedCodeCandidates, type CodeRecord } from '../../../src/codes/model/codes.js'

const unbound: CodeRecord = { code: 'AB12', state: 'active', paused: false, chatUserId: '1', platformUserId: null, platformUsername: null }
const bound: CodeRecord = { ...unbound, platformUserId: '10', platformUsername: 'Owner' }
const A = { platformUserId: '10', platformUsername: 'Owner' }
const B = { platformUserId: '20', platformUsername: 'Other' }

t.test('code format', async (t) => {
  const cases: Array<[unknown, boolean]> = [
    ['AB12', true], ['ZZZZ', true], ['0000', true], ['ab12', false], ['AB1', false], ['AB123', false], ['AB 1', false],
    ['AB1\n', false], ['ÄB12', false], ['', false], [1234, false], [null, false], ['AB%26', false],
  ]
  for (const [value, ok] of cases) t.equal(isCode(value), ok, JSON.stringify(value))
})

t.test('new codes come from A-Z0-9 without the look-alikes O, I and L, without bias, skipping bytes >= 231', async (t) => {
  t.equal(ISSUE_ALPHABET, 'ABCDEFGHJKMNPQRSTUVWXYZ0123456789')
  t.equal(ISSUE_ALPHABET.length, 33)
  t.same(LOOK_ALIKES, { O: '0', I: '1', L: '1' })
  t.equal(codeFromBytes(new Uint8Array([0, 22, 23, 32])), 'AZ09')
  t.equal(codeFromBytes(new Uint8Array([231, 255, 33, 34, 64, 230])), 'AB89')
  t.equal(codeFromBytes(new Uint8Array([232, 254, 1])), null)
  const seen = new Set<string>()
  for (let byte = 0; byte < 231; byte++) seen.add(codeFromBytes(new Uint8Array([byte, byte, byte, byte]))!.charAt(0))
  t.equal([...seen].sort().join(''), [...ISSUE_ALPHABET].sort().join(''), 'every byte below 231 gives a character of the alphabet, each 7 times')
  t.notOk([...ISSUE_ALPHABET].some((c) => 'OIL'.includes(c)))
  t.ok(isCode('OO1R') && isCode('L1M2'), 'codes issued before the rule still have the format the API accepts')
  t.equal(CODE_ALPHABET.length, 36)
})

t.test('what a player typed becomes the codes a game client tries (shared with the Roblox module)', async (t) => {
  const cases = JSON.parse(readFileSync(new URL('../../fixtures/typed-codes.json', import.meta.url), 'utf8')) as Array<{ typed: string; candidates: string[] }>
  t.ok(cases.length >= 10)
  for (const { typed, candidates } of cases) t.same(typedCodeCandidates(typed), candidates, JSON.stringify(typed))
})

t.test('bind table', async (t) => {
  const rows: Array<[string, CodeRecord | undefined, string, Partial<CodeRecord> | null]> = [
    ['unknown code: not_found', undefined, 'not_found', null],
    ['revoked code: not_found', { ...bound, state: 'revoked' }, 'not_found', null],
    ['banned code: banned, not linked', { ...unbound, state: 'banned' }, 'banned', null],
    ['unbound code: bound to the account', unbound, 'bound', { platformUserId: '10', platformUsername: 'Owner', state: 'active' }],
    ['same account again: already_bound', bound, 'already_bound', { platformUserId: '10', state: 'active' }],
    ['different account: invalidated, the original link kept', bound, 'invalidated', { platformUserId: '10', state: 'invalidated' }],
    ['invalidated code: invalidated', { ...bound, state: 'invalidated' }, 'invalidated', { state: 'invalidated' }],
    ['paused unbound code still binds', { ...unbound, paused: true }, 'bound', { paused: true, platformUserId: '10' }],
  ]
  for (const [name, record, status, next] of rows) {
    t.test(name, async (t) => {
      const attempt = name.startsWith('different') || name.startsWith('invalidated') ? B : A
      const d = decideBind(record, attempt)
      t.equal(d.status, status)
      if (next === null) t.equal(d.next, null)
      else t.match(d.next, next)
    })
  }
  t.test('a different account reports both accounts for the moderation entry', async (t) => {
    const d = decideBind(bound, B)
    t.equal(d.status, 'invalidated')
    if (d.status === 'invalidated') t.same(d.conflict, { boundTo: A, attempted: B })
  })
  t.test('the same account with a new username updates the username', async (t) => {
    const d = decideBind(bound, { platformUserId: '10', platformUsername: 'New_Name' })
    t.equal(d.status, 'already_bound')
    t.equal(d.next?.platformUsername, 'New_Name')
    t.equal(d.changed, true)
    t.equal(decideBind(bound, A).changed, false)
  })
})

t.test('actions', async (t) => {
  const rows: Array<[string, CodeRecord | undefined, Parameters<typeof applyAction>[1], string | Partial<CodeRecord>]> = [
    ['ban an active code', bound, 'ban', { state: 'banned', platformUserId: '10' }],
    ['ban twice', { ...bound, state: 'banned' }, 'ban', 'already_banned'],
    ['unban', { ...bound, state: 'banned' }, 'unban', { state: 'active', platformUserId: '10' }],
    ['unban a code that is not banned', bound, 'unban', 'not_banned'],
    ['pause', bound, 'pause', { paused: true }],
    ['pause twice', { ...bound, paused: true }, 'pause', 'already_paused'],
    ['resume', { ...bound, paused: true }, 'resume', { paused: false }],
    ['resume when not paused', bound, 'resume', 'not_paused'],
    ['reset unlinks and clears an invalidation', { ...bound, state: 'invalidated' }, 'reset', { state: 'active', platformUserId: null, platformUsername: null }],
    ['reset a banned code is refused', { ...bound, state: 'banned' }, 'reset', 'banned'],
    ['revoke', bound, 'revoke', { state: 'revoked' }],
    ['invalidate (the DM button)', bound, 'invalidate', { state: 'invalidated' }],
    ['invalidate twice', { ...bound, state: 'invalidated' }, 'invalidate', 'invalidated'],
    ['anything on an unknown code', undefined, 'ban', 'not_found'],
    ['anything on a revoked code', { ...bound, state: 'revoked' }, 'pause', 'not_found'],
  ]
  for (const [name, record, action, expected] of rows) {
    t.test(name, async (t) => {
      const r = applyAction(record, action)
      if (typeof expected === 'string') t.same(r, { ok: false, reason: expected })
      else {
        t.ok(r.ok)
        if (r.ok) t.match(r.next, expected)
      }
    })
  }
})
