/** The log request body and its batch form, read without I/O: every refusal kind, hostile events, and the bounds. */
import t from 'tap'
import * as v from 'valibot'
import { isLogBatchBody, logEventIssues, LogRequestSchema, MAX_LOG_BATCH_EVENTS, parseLogBatch, readLogRequest } from '../../../src/http/model/log-request.js'

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

t.test('readLogRequest reads exactly what LogRequestSchema reads', async (t) => {
  const full = { event_type: ' kick ', description: 'Line one\nline two\ttab', platform_username: 'Player_1', platform_user_id: 12345, issued_by: '  ModBob ', code: 'AB12' }
  const cases: Array<[string, unknown]> = [
    ['every field', full],
    ['only the required', { event_type: 'x', description: 'y' }],
    ['nulls for the optional', { ...full, platform_username: null, platform_user_id: null, issued_by: null, code: null }],
    ['unknown fields dropped', { ...full, colour: 'red' }],
    ['a malformed code is kept for the route to refuse', { ...full, code: 'ab12' }],
    ['a code of another type is kept', { ...full, code: 1234 }],
    ['event_type all spaces', { ...full, event_type: '   ' }],
    ['event_type 64 after trimming', { ...full, event_type: ` ${'e'.repeat(64)} ` }],
    ['event_type 65', { ...full, event_type: 'e'.repeat(65) }],
    ['event_type with a tab inside', { ...full, event_type: 'a\tb' }],
    ['event_type with a line break at its end (trimmed)', { ...full, event_type: 'kick\n' }],
    ['event_type with U+2028', { ...full, event_type: 'a\u2028b' }],
    ['event_type a C1 control', { ...full, event_type: 'a\u0085b' }],
    ['event_type a number', { ...full, event_type: 5 }],
    ['description blank', { ...full, description: ' \n\t ' }],
    ['description empty', { ...full, description: '' }],
    ['description 4000', { ...full, description: 'd'.repeat(4000) }],
    ['description 4001', { ...full, description: 'd'.repeat(4001) }],
    ['description with a NUL', { ...full, description: 'a\u0000b' }],
    ['description with DEL', { ...full, description: 'a\u007fb' }],
    ['description with a carriage return', { ...full, description: 'a\r\nb' }],
    ['description with emoji', { ...full, description: '\u{1F3AE}'.repeat(2000) }],
    ['description with a lone surrogate', { ...full, description: 'a\ud800b' }],
    ['username too short', { ...full, platform_username: 'ab' }],
    ['username with a space', { ...full, platform_username: 'a b c' }],
    ['username 20', { ...full, platform_username: 'u'.repeat(20) }],
    ['username 21', { ...full, platform_username: 'u'.repeat(21) }],
    ['username a number', { ...full, platform_username: 12345 }],
    ['user id 0', { ...full, platform_user_id: 0 }],
    ['user id negative', { ...full, platform_user_id: -1 }],
    ['user id fractional', { ...full, platform_user_id: 1.5 }],
    ['user id a string', { ...full, platform_user_id: '156' }],
    ['user id the largest safe', { ...full, platform_user_id: Number.MAX_SAFE_INTEGER }],
    ['user id past it', { ...full, platform_user_id: Number.MAX_SAFE_INTEGER + 2 }],
    ['issued_by 100 after trimming', { ...full, issued_by: ` ${'i'.repeat(100)} ` }],
    ['issued_by 101', { ...full, issued_by: 'i'.repeat(101) }],
    ['issued_by empty', { ...full, issued_by: '' }],
    ['issued_by with a line break inside', { ...full, issued_by: 'a\nb' }],
    ['not an object', 'x'],
    ['null', null],
    ['a list', [full]],
  ]
  for (const [name, value] of cases) {
    const parsed = v.safeParse(LogRequestSchema, value, { abortPipeEarly: true })
    t.same(readLogRequest(value), parsed.success && !Array.isArray(value) ? parsed.output : undefined, name)
  }
})
