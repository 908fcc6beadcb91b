/** ETags and If-None-Match (http/model/etag.ts). */
import t from 'tap'
import { etagOf, ifNoneMatchHits } from '../../../src/http/model/etag.js'

const tag = etagOf('abc-DEF_123')

t.test('If-None-Match matches by weak comparison', async (t) => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['"abc-DEF_123"', true],
    ['W/"abc-DEF_123"', true],
    ['*', true],
    [' * ', true],
    ['"other", "abc-DEF_123"', true],
    ['"other",W/"abc-DEF_123"', true],
    ['"a,b", "abc-DEF_123"', true],
    ['"other"', false],
    ['abc-DEF_123', false],
    ['"abc-def_123"', false],
    ['"abc-DEF_12"', false],
    ['"abc-DEF_123', false],
    ['W/ "abc-DEF_123x"', false],
    ['"😀"', false],
    ['"x"'.repeat(4000), false],
  ]
  for (const [header, hit] of cases) t.equal(ifNoneMatchHits(header, tag), hit, JSON.stringify(header)?.slice(0, 60))
})

t.test('the ETag is strong and quoted', async (t) => {
  t.equal(tag, '"abc-DEF_123"')
})
