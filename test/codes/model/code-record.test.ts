/** The cached code record and presence entry encodings and the block view precedence (src/codes/model/code-record.ts, presence-entry.ts). */
import t from 'tap'
import { decodeCachedCode, encodeCachedCode, viewOf } from '../../../src/codes/model/code-record.js'
import { decodePresence, encodePresence } from '../../../src/presence/model/presence-entry.js'

t.test('cached code records round-trip and malformed values are rejected', async (t) => {
  const rec = { state: 'active' as const, paused: true, chatUserId: '123', platformUsername: 'Name_1', version: 7 }
  t.equal(encodeCachedCode(rec), 'active|1|123|Name_1|7', 'the version is the last field')
  t.same(decodeCachedCode(encodeCachedCode(rec)), rec)
  t.same(decodeCachedCode('active|0|123||2'), { state: 'active', paused: false, chatUserId: '123', platformUsername: null, version: 2 })
  t.same(decodeCachedCode('active|0|123|12345'), { state: 'active', paused: false, chatUserId: '123', platformUsername: '12345', version: 0 }, 'a record from before versions is version 0')
  t.same(decodeCachedCode('revoked|0|9||3'), { state: 'revoked', paused: false, chatUserId: '9', platformUsername: null, version: 3 }, 'a tombstone')
  for (const bad of ['', 'active|0|123', 'weird|0|1|x', 'active|2|1|x', 'active|0|1|x|y', 'active|0|1|x|1|2', 'active|0|1|x|', 'active|0|1|x|-1', 'active|0|1|x|1e3']) {
    t.equal(decodeCachedCode(bad), undefined, bad)
  }
})

t.test('view precedence: unknown, banned, invalidated, paused, unlinked, active', async (t) => {
  const base = { state: 'active' as const, paused: false, chatUserId: '1', platformUsername: 'N_1' }
  t.same(viewOf(undefined, 'x'), { kind: 'not_found' })
  t.same(viewOf({ ...base, state: 'revoked' }, 'x'), { kind: 'not_found' })
  t.same(viewOf({ ...base, state: 'banned', paused: true }, 'x'), { kind: 'banned', username: 'N_1' })
  t.same(viewOf({ ...base, state: 'invalidated', paused: true }, 'x'), { kind: 'invalidated', username: 'N_1' })
  t.same(viewOf({ ...base, paused: true }, 'x'), { kind: 'paused' })
  t.same(viewOf({ ...base, platformUsername: null }, 'x'), { kind: 'not_linked' })
  t.same(viewOf(base, 'Playing,\nX;\n'), { kind: 'active', username: 'N_1', activity: 'Playing,\nX;\n' })
})

t.test('presence entries round-trip; malformed ones are rejected', async (t) => {
  const e = { shard: 3, status: 'idle' as const, activity: 'Playing,\nA|B;\n' }
  t.same(decodePresence(encodePresence(e)), e)
  for (const bad of ['', '3', '3|idle', 'x|idle|a', '3|offline|a', '-1|idle|a']) t.equal(decodePresence(bad), undefined, bad)
})
