/** The safety verdict and its Threat Detection job (src/safety/model/verdict.ts, src/safety/threat-detection.ts). */
import t from 'tap'
import { decideSafety, type SafetyFacts } from '../../../src/safety/model/verdict.js'
import { threatDetectionJob } from '../../../src/safety/threat-detection.js'

const clean: SafetyFacts = { platformUserId: '42', code: null, bannedLinkedCodes: [], infractions: 0, watch: null }
const thresholds = { review: 1, unsafe: 3 }

t.test('decideSafety', async (t) => {
  const cases: Array<[string, Partial<SafetyFacts>, { review: number; unsafe: number }, string, string[]]> = [
    ['nothing known is safe', {}, thresholds, 'safe', []],
    ['an active code linked to the same account is safe', { code: { code: 'AB12', state: 'active', platformUserId: '42' } }, thresholds, 'safe', []],
    ['a banned code is unsafe', { code: { code: 'AB12', state: 'banned', platformUserId: '42' } }, thresholds, 'unsafe', ['code_banned']],
    ['an invalidated code is unsafe', { code: { code: 'AB12', state: 'invalidated', platformUserId: '7' } }, thresholds, 'unsafe', ['code_invalidated', 'code_linked_elsewhere']],
    ['a code linked to another account is for review', { code: { code: 'AB12', state: 'active', platformUserId: '7' } }, thresholds, 'review', ['code_linked_elsewhere']],
    ['an unlinked code says nothing', { code: { code: 'AB12', state: 'active', platformUserId: null } }, thresholds, 'safe', []],
    ['a banned code linked to the account, not given, is unsafe', { bannedLinkedCodes: ['ZZ99'] }, thresholds, 'unsafe', ['linked_code_banned']],
    ['the given banned code is not counted twice', { code: { code: 'AB12', state: 'banned', platformUserId: '42' }, bannedLinkedCodes: ['AB12'] }, thresholds, 'unsafe', ['code_banned']],
    ['one infraction is for review', { infractions: 1 }, thresholds, 'review', ['infractions']],
    ['two infractions are for review', { infractions: 2 }, thresholds, 'review', ['infractions']],
    ['three infractions are unsafe', { infractions: 3 }, thresholds, 'unsafe', ['infractions']],
    ['a review threshold of 0 turns review by infractions off', { infractions: 2 }, { review: 0, unsafe: 3 }, 'safe', []],
    ['an unsafe threshold of 0 keeps many infractions at review', { infractions: 50 }, { review: 1, unsafe: 0 }, 'review', ['infractions']],
    ['the watchlist is for review', { watch: { reason: 'exploit reports' } }, thresholds, 'review', ['watchlist']],
    ['every basis at once: unsafe with every reason', {
      code: { code: 'AB12', state: 'banned', platformUserId: '7' }, bannedLinkedCodes: ['ZZ99'], infractions: 5, watch: { reason: null },
    }, thresholds, 'unsafe', ['code_banned', 'code_linked_elsewhere', 'linked_code_banned', 'infractions', 'watchlist']],
  ]
  for (const [name, facts, limits, status, reasons] of cases) {
    t.test(name, async (t) => {
      const verdict = decideSafety({ ...clean, ...facts }, limits)
      t.equal(verdict.status, status)
      t.same(verdict.reasons.map((r) => r.reason), reasons)
    })
  }

  t.test('messages say what was found', async (t) => {
    t.same(decideSafety({ ...clean, infractions: 3, watch: { reason: 'alt of a banned player' } }, thresholds).reasons.map((r) => r.message), [
      '3 infractions on record (unsafe from 3)',
      'on the staff watchlist: alt of a banned player',
    ])
    t.same(decideSafety({ ...clean, infractions: 1 }, thresholds).reasons[0]?.message, '1 infraction on record (review from 1)')
    t.equal(
      decideSafety({ ...clean, code: { code: 'AB12', state: 'invalidated', platformUserId: '42' } }, thresholds).reasons[0]?.message,
      'code AB12 is invalidated (another account tried to bind it, or its owner reported a link they did not make)',
      'an invalidated code names both ways it can happen: the service does not record which',
    )
  })
})

t.test('threatDetectionJob', async (t) => {
  const verdict = decideSafety({ ...clean, infractions: 3 }, thresholds)
  const subject = { platformUserId: '42', platformUsername: 'Player_1', code: 'AB12' }
  const at = { source: 'api:game-eu', sourceIp: '10.0.0.1', nowMs: Date.parse('2024-05-01T12:00:30Z') }

  t.test('writes a Threat Detection entry to the in-game log with the code', async (t) => {
    const { job, jobId } = threatDetectionJob(subject, verdict, { ...at, category: 'ingame' })
    t.match(job, {
      category: 'ingame',
      eventType: 'threat_detection',
      issuedBy: 'Threat Detection',
      platformUserId: '42',
      platformUsername: 'Player_1',
      code: 'AB12',
      source: 'api:game-eu',
      sourceIp: '10.0.0.1',
      receivedAt: at.nowMs,
    })
    t.equal(job.description, 'Safety check: UNSAFE for Player_1 (42) using code AB12\n- 3 infractions on record (unsafe from 3)')
    t.equal(jobId, `threat-42-unsafe-${Math.floor(at.nowMs / 60_000)}`)
  })

  t.test('in the moderation log the code is only in the text, so it never becomes an infraction', async (t) => {
    const { job } = threatDetectionJob(subject, verdict, { ...at, category: 'moderation' })
    t.equal(job.category, 'moderation')
    t.equal(job.code, null)
    t.match(job.description, /using code AB12/)
  })

  t.test('the same player and verdict within a minute give the same job id; the next minute a new one', async (t) => {
    const a = threatDetectionJob(subject, verdict, { ...at, category: 'ingame', nowMs: at.nowMs + 20_000 }).jobId
    const b = threatDetectionJob(subject, verdict, { ...at, category: 'ingame', nowMs: at.nowMs + 40_000 }).jobId
    t.equal(threatDetectionJob(subject, verdict, { ...at, category: 'ingame' }).jobId, a)
    t.not(a, b)
  })
})
