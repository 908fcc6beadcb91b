/** The log request body and its batch form, read without I/O: every refusal kind, hostile events, and the bounds. */
import t from 'tap'
import { isLogBatchBody, logEventIssues, MAX_LOG_BATCH_EVENTS, parseLogBatch } from '../../../src/http/model/log-request.js'

const ok = { event_type: 'join', description: 'joined' }

t.test('which bodies are batches', async (t) => {
  const cases: Array<[string, unknown, boolean]> = [
    ['an object with events', { events: [] }, true],
    ['events null is still the batch form (and refused there)', { events: null }, true],
    ['a single event', ok, false],
    ['a list', [ok], false],
    ['null', null, false],
    ['a string', 'events', false],
  ]
  for (const [name, body, expected] of cases) t.equal(isLogBatchBody(body), expected, name)
})

t.test('one event', async (t) => {
  const cases: Array<[string, unknown, unknown]> = [
    ['valid, trimmed label', { event_type: '  join ', description: 'x' }, { ok: true, event: { event_type: 'join', description: 'x' } }],
    ['a valid code', { ...ok, code: 'AB12' }, { ok: true, event: { ...ok, code: 'AB12' } }],
    ['a null code counts as absent', { ...ok, code: null }, { ok: true }],
    ['a lowercase code', { ...ok, code: 'ab12' }, { ok: false, issues: [{ field: 'code', message: 'must be 4 characters, each A-Z or 0-9' }] }],
    ['a numeric code', { ...ok, code: 1234 }, { ok: false, issues: [{ field: 'code', message: 'must be 4 characters, each A-Z or 0-9' }] }],
    ['%26 is not a code', { ...ok, code: '%26A' }, { ok: false, issues: [{ field: 'code', message: 'must be 4 characters, each A-Z or 0-9' }] }],
    ['missing both fields', {}, { ok: false, issues: [{ field: 'event_type', message: 'is required' }, { field: 'description', message: 'is required' }] }],
    ['a schema issue and a bad code together', { event_type: 'x', code: 'A' }, { ok: false, issues: [{ field: 'description', message: 'is required' }, { field: 'code', message: 'must be 4 characters, each A-Z or 0-9' }] }],
    ['not an object', 42, { ok: false, issues: [{ field: 'event', message: 'must be a JSON object' }] }],
    ['a list', [ok], { ok: false, issues: [{ field: 'event', message: 'must be a JSON object' }] }],
    ['a line break in event_type', { event_type: 'a\nb', description: 'x' }, { ok: false, issues: [{ field: 'event_type', message: 'must not contain control characters or line breaks' }] }],
    ['emoji are text', { event_type: '🎮', description: '🎮'.repeat(100) }, { ok: true }],
    ['4,001 characters', { event_type: 'x', description: 'y'.repeat(4001) }, { ok: false, issues: [{ field: 'description', message: 'must be at most 4000 characters' }] }],
    ['a zero user id', { ...ok, platform_user_id: 0 }, { ok: false, issues: [{ field: 'platform_user_id', message: 'must be positive' }] }],
  ]
  for (const [name, value, expected] of cases) t.match(logEventIssues(value), expected as object, name)
})

t.test('batches, all or nothing', async (t) => {
  t.same(parseLogBatch({ events: 'x' }), { ok: false, kind: 'not_a_list' })
  t.same(parseLogBatch({ events: null }), { ok: false, kind: 'not_a_list' })
  t.same(parseLogBatch({ events: [] }), { ok: false, kind: 'empty' })
  t.same(parseLogBatch({ events: Array(MAX_LOG_BATCH_EVENTS + 1).fill(ok) }), { ok: false, kind: 'too_many', count: 501 })
  const most = parseLogBatch({ events: Array(MAX_LOG_BATCH_EVENTS).fill(ok) })
  t.equal(most.ok && most.events.length, 500, '500 is the most')
  t.same(parseLogBatch({ events: [ok, { event_type: 'x' }, ok, null] }), {
    ok: false,
    kind: 'invalid',
    events: [
      { index: 1, issues: [{ field: 'description', message: 'is required' }] },
      { index: 3, issues: [{ field: 'event', message: 'must be a JSON object' }] },
    ],
  })
  const good = parseLogBatch({ events: [ok, { ...ok, event_type: 'leave' }] })
  t.same(good, { ok: true, events: [ok, { ...ok, event_type: 'leave' }] }, 'valid events in order')
})
