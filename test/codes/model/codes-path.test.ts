/** The code format and reading codes from a callbacks or rpc path (src/codes/model/codes.ts, codes-path.ts). */
import t from 'tap'
import { CODE_PATTERN, isCode } from '../../../src/codes/model/codes.js'
import { type CodesPathResult, parseCodesPath } from '../../../src/codes/model/codes-path.js'

const NO_USABLE: CodesPathResult = {
  ok: false,
  reason: 'no_usable_code',
  message: 'no usable code in the path: codes are 4 characters A-Z or 0-9, separated by &',
}
const tooMany = (max: number): CodesPathResult => ({
  ok: false,
  reason: 'too_many_codes',
  message: `too many codes: at most ${max} per request`,
})
const codesOf = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => i.toString(36).toUpperCase().padStart(4, '0'))

t.test('isCode', async (t) => {
  t.equal(String(CODE_PATTERN), '/^[A-Z0-9]{4}$/')
  const cases: Array<[string, boolean]> = [
    ['AB12', true],
    ['0000', true],
    ['ZZZZ', true],
    ['ab12', false],
    ['Ab12', false],
    ['AB1', false],
    ['AB123', false],
    ['AB 1', false],
    ['AB1\n', false],
    ['ÄB12', false],
    ['ＡＢ１２', false],
    ['', false],
  ]
  for (const [value, want] of cases) {
    t.test(`${JSON.stringify(value)} is ${want ? '' : 'not '}a code`, async (t) => {
      t.equal(isCode(value), want)
    })
  }
})

t.test('parseCodesPath', async (t) => {
  const cases: Array<{ name: string; raw: string; max?: number; want: CodesPathResult }> = [
    { name: 'one code is answered', raw: 'AB12', want: { ok: true, codes: ['AB12'], skipped: 0 } },
    {
      name: 'codes separated by & are answered in order',
      raw: 'ZZ99&AB12&0000',
      want: { ok: true, codes: ['ZZ99', 'AB12', '0000'], skipped: 0 },
    },
    {
      name: 'an encoded %26 separates codes',
      raw: 'AB12%26CD34',
      want: { ok: true, codes: ['AB12', 'CD34'], skipped: 0 },
    },
    { name: '& and %26 mix', raw: 'AB12%26CD34&EF56', want: { ok: true, codes: ['AB12', 'CD34', 'EF56'], skipped: 0 } },
    {
      name: 'a doubly encoded %2526 does not separate',
      raw: 'AB12&CD34%2526EF56',
      want: { ok: true, codes: ['AB12'], skipped: 1 },
    },
    { name: 'a path of only %2526 has no usable code', raw: 'CD34%2526EF56', want: NO_USABLE },
    {
      name: 'percent-encoded letters are decoded',
      raw: '%41%42%31%32',
      want: { ok: true, codes: ['AB12'], skipped: 0 },
    },
    { name: 'lowercase codes are not usable', raw: 'ab12', want: NO_USABLE },
    {
      name: 'lowercase codes are skipped among good ones',
      raw: 'ab12&CD34&Ef56',
      want: { ok: true, codes: ['CD34'], skipped: 2 },
    },
    { name: 'an empty path has no usable code', raw: '', want: NO_USABLE },
    { name: 'only separators have no usable code', raw: '&&&', want: NO_USABLE },
    { name: 'only encoded separators have no usable code', raw: '%26%26', want: NO_USABLE },
    {
      name: 'empty tokens are ignored, not skipped',
      raw: '&AB12&&CD34&',
      want: { ok: true, codes: ['AB12', 'CD34'], skipped: 0 },
    },
    {
      name: 'duplicates are answered once in first-seen order',
      raw: 'CD34&AB12&CD34&AB12',
      want: { ok: true, codes: ['CD34', 'AB12'], skipped: 0 },
    },
    {
      name: 'a duplicate spelled with escapes is still a duplicate',
      raw: 'AB12&%41B12',
      want: { ok: true, codes: ['AB12'], skipped: 0 },
    },
    {
      name: 'a malformed %ZZ escape is skipped without throwing',
      raw: 'AB12&%ZZ&CD34',
      want: { ok: true, codes: ['AB12', 'CD34'], skipped: 1 },
    },
    { name: 'a cut-off escape is skipped', raw: 'AB1%&CD34%4', want: NO_USABLE },
    {
      name: 'an invalid UTF-8 escape is skipped',
      raw: '%E0%A4%A&AB12',
      want: { ok: true, codes: ['AB12'], skipped: 1 },
    },
    {
      name: '5-character and 3-character tokens are skipped',
      raw: 'ABCDE&ABC&AB12',
      want: { ok: true, codes: ['AB12'], skipped: 2 },
    },
    {
      name: 'unicode tokens are skipped',
      raw: 'ÄB12&ＡＢ１２&%C3%84B12&👍🏽&AB12',
      want: { ok: true, codes: ['AB12'], skipped: 4 },
    },
    { name: 'tokens with spaces are skipped, not trimmed', raw: ' AB12&AB%2012&CD34 ', want: NO_USABLE },
    {
      name: 'a newline inside a token makes it unusable',
      raw: 'AB12%0A&CD34',
      want: { ok: true, codes: ['CD34'], skipped: 1 },
    },
    {
      name: 'exactly the maximum is answered',
      raw: codesOf(200).join('&'),
      max: 200,
      want: { ok: true, codes: codesOf(200), skipped: 0 },
    },
    { name: 'one more than the maximum is refused', raw: codesOf(201).join('&'), max: 200, want: tooMany(200) },
    {
      name: 'duplicates do not count toward the maximum',
      raw: [...codesOf(200), ...codesOf(200)].join('&'),
      max: 200,
      want: { ok: true, codes: codesOf(200), skipped: 0 },
    },
    {
      name: 'unusable tokens do not count toward the maximum',
      raw: [...codesOf(3), 'x', 'y'].join('&'),
      max: 3,
      want: { ok: true, codes: codesOf(3), skipped: 2 },
    },
    {
      name: 'input of exactly 64 KiB is scanned',
      raw: `AB12${'&'.repeat(64 * 1024 - 4)}`,
      want: { ok: true, codes: ['AB12'], skipped: 0 },
    },
    {
      name: 'input longer than 64 KiB is refused as too many codes',
      raw: `AB12${'&'.repeat(64 * 1024 - 3)}`,
      want: tooMany(200),
    },
    {
      name: 'a 4,000-character token is skipped',
      raw: `${'A'.repeat(4000)}&AB12`,
      want: { ok: true, codes: ['AB12'], skipped: 1 },
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.strictSame(parseCodesPath(c.raw, c.max ?? 200), c.want)
    })
  }
})
