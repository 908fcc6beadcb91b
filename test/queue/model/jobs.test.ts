/** The request and job schemas share one code schema; the bind result schema takes exactly what workers return. */
import t from 'tap'
import * as v from 'valibot'
import { BindRequestSchema } from '../../../src/http/model/bind-request.js'
import { CodeSchema } from '../../../src/http/model/fields.js'
import { BindJobResultSchema, BindJobSchema, BoundNoticeSchema, LogJobSchema, readLogJob } from '../../../src/queue/model/jobs.js'

const CODES: Array<[unknown, boolean, string]> = [
  ['AB12', true, 'uppercase letters and digits'],
  ['ab12', false, 'lowercase'],
  ['AB1', false, 'too short'],
  ['AB123', false, 'too long'],
  ['AB\n1', false, 'a newline'],
  ['AB%26', false, 'an encoded separator'],
  ['AB😀', false, 'an emoji'],
  ['A'.repeat(4000), false, '4,000 characters'],
  [1234, false, 'a number'],
]

t.test('one code schema decides for every request and job', async (t) => {
  const log = { category: 'server', eventType: 'e', description: 'd', platformUsername: null, platformUserId: null, issuedBy: null, source: 's', sourceIp: null, receivedAt: 1 }
  for (const [code, ok, what] of CODES) {
    t.equal(v.is(CodeSchema, code), ok, what)
    t.equal(v.is(BindRequestSchema, { code, platform_username: 'Abc' }), ok, `bind request: ${what}`)
    t.equal(v.is(BindJobSchema, { code, platformUsername: 'Abc', platformUserId: null, source: 's', requestId: 'r' }), ok, `bind job: ${what}`)
    t.equal(v.is(LogJobSchema, { ...log, code }), ok, `log job: ${what}`)
    t.equal(v.is(BoundNoticeSchema, { chatUserId: '1', code, platformUsername: 'Abc', platformUserId: '2' }), ok, `bound notice: ${what}`)
  }
  t.equal(v.is(LogJobSchema, { ...log, code: null }), true, 'a log job may carry no code')
  const issue = v.safeParse(BindRequestSchema, { code: 'ab12', platform_username: 'Abc' }).issues?.[0]?.message
  t.equal(issue, 'must be 4 characters, each A-Z or 0-9', 'the API names the format')
})

t.test('the bind result schema', async (t) => {
  const cases: Array<[unknown, boolean]> = [
    [{ status: 'bound', platformUsername: 'Abc' }, true],
    [{ status: 'already_bound', platformUsername: 'Abc' }, true],
    [{ status: 'not_found' }, true],
    [{ status: 'banned' }, true],
    [{ status: 'invalidated' }, true],
    [{ status: 'error', reason: 'unknown_username', message: 'no such user' }, true],
    [{ status: 'error', reason: 'resolution_failed', message: 'HTTP 500' }, true],
    [{ status: 'bound' }, false],
    [{ status: 'error', reason: 'other', message: 'x' }, false],
    [{ status: 'linked' }, false],
    [null, false],
    ['bound', false],
  ]
  for (const [value, ok] of cases) t.equal(v.is(BindJobResultSchema, value), ok, JSON.stringify(value))
})

t.test('readLogJob reads exactly what LogJobSchema reads', async (t) => {
  const good = {
    category: 'moderation',
    eventType: 'kick',
    description: 'Exploiting',
    platformUsername: 'Builderman',
    platformUserId: '156',
    issuedBy: 'ModBob',
    code: 'AB12',
    source: 'api:game',
    sourceIp: '10.0.0.1',
    receivedAt: 1_764_000_000_000,
  }
  const cases: Array<[string, unknown]> = [
    ['a full event', good],
    ['nulls where allowed', { ...good, platformUsername: null, platformUserId: null, issuedBy: null, code: null, sourceIp: null }],
    ['with data', { ...good, data: { any: ['thing'] } }],
    ['with data null', { ...good, data: null }],
    ['an unknown field is dropped', { ...good, extra: 1 }],
    ['an unknown category', { ...good, category: 'chat' }],
    ['a category of another case', { ...good, category: 'Server' }],
    ['eventType missing', { ...good, eventType: undefined }],
    ['description a number', { ...good, description: 5 }],
    ['platformUserId a number', { ...good, platformUserId: 156 }],
    ['platformUserId with a leading zero', { ...good, platformUserId: '0156' }],
    ['platformUserId of 21 digits', { ...good, platformUserId: '123456789012345678901' }],
    ['platformUserId of 20 digits', { ...good, platformUserId: '12345678901234567890' }],
    ['a lowercase code', { ...good, code: 'ab12' }],
    ['code missing', { ...good, code: undefined }],
    ['receivedAt a string', { ...good, receivedAt: '1764000000000' }],
    ['receivedAt NaN', { ...good, receivedAt: Number.NaN }],
    ['sourceIp missing', { ...good, sourceIp: undefined }],
    ['null', null],
    ['a list', [good]],
    ['a string', 'event'],
  ]
  for (const [name, value] of cases) {
    const parsed = v.safeParse(LogJobSchema, value)
    t.same(readLogJob(value), parsed.success ? parsed.output : undefined, name)
  }
})
