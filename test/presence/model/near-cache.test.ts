/** The near cache's bookkeeping (presence/model/near-cache.ts): tickets against invalidations, liveness, the LRU bound. */
import t from 'tap'
import { createNearCache, nearView, sameViews, stampHolds, type NearEntry } from '../../../src/presence/model/near-cache.js'

const entry = (activity: string, shard = 0): NearEntry => ({
  record: { state: 'active', paused: false, chatUserId: '1', platformUsername: 'Someone', version: 1 },
  presence: { shard, status: 'online', activity },
})
const live = () => {
  const near = createNearCache(10)
  near.setLive(true)
  return near
}

t.test('a read racing a write', async (t) => {
  t.test('is cached when nothing was invalidated since its ticket', async (t) => {
    const near = live()
    const ticket = near.ticket()
    t.equal(near.put('AAAA', entry('x'), ticket), true)
    t.same(near.get('AAAA'), entry('x'))
  })
  t.test('is not cached when its code was invalidated after the ticket (the message came before the reply)', async (t) => {
    const near = live()
    const ticket = near.ticket()
    near.invalidate(['AAAA'])
    t.equal(near.put('AAAA', entry('old'), ticket), false)
    t.equal(near.get('AAAA'), undefined)
  })
  t.test('is removed by a message arriving after the reply', async (t) => {
    const near = live()
    near.put('AAAA', entry('old'), near.ticket())
    near.invalidate(['AAAA'])
    t.equal(near.get('AAAA'), undefined)
  })
  t.test('of another code is still cached', async (t) => {
    const near = live()
    const ticket = near.ticket()
    near.invalidate(['BBBB'])
    t.equal(near.put('AAAA', entry('x'), ticket), true)
  })
  t.test('is cached when the invalidation came before its ticket', async (t) => {
    const near = live()
    near.invalidate(['AAAA'])
    t.equal(near.put('AAAA', entry('new'), near.ticket()), true)
  })
  for (const [name, drop] of [
    ['a * message', (n: ReturnType<typeof live>) => n.invalidateAll()],
    ['the feed going down and up again', (n: ReturnType<typeof live>) => (n.setLive(false), n.setLive(true))],
    ['the feed coming back', (n: ReturnType<typeof live>) => n.setLive(true)],
  ] as const) {
    t.test(`is not cached after ${name}, and everything cached is dropped`, async (t) => {
      const near = live()
      near.put('BBBB', entry('b'), near.ticket())
      const ticket = near.ticket()
      drop(near)
      t.equal(near.put('AAAA', entry('old'), ticket), false)
      t.equal(near.size, 0)
    })
  }
})

t.test('nothing is cached while the feed is not live, nor with a capacity of 0', async (t) => {
  const near = createNearCache(10)
  t.equal(near.live, false)
  t.equal(near.put('AAAA', entry('x'), near.ticket()), false)
  near.setLive(true)
  near.put('AAAA', entry('x'), near.ticket())
  near.setLive(false)
  t.equal(near.size, 0, 'dropped when the feed stops')
  t.equal(near.put('AAAA', entry('x'), near.ticket()), false)
  const off = createNearCache(0)
  off.setLive(true)
  t.equal(off.live, false)
  t.equal(off.put('AAAA', entry('x'), off.ticket()), false)
})

t.test('the bound pushes out the least recently used entry and counts it', async (t) => {
  let evicted = 0
  const near = createNearCache(3, () => evicted++)
  near.setLive(true)
  for (const code of ['AAAA', 'BBBB', 'CCCC']) near.put(code, entry(code), near.ticket())
  near.get('AAAA')
  near.put('DDDD', entry('d'), near.ticket())
  t.equal(near.size, 3)
  t.equal(near.get('BBBB'), undefined, 'BBBB was the least recently used')
  t.ok(near.get('AAAA') && near.get('CCCC') && near.get('DDDD'))
  near.put('DDDD', entry('d2'), near.ticket())
  t.equal(near.size, 3, 'replacing an entry evicts nothing')
  t.equal(near.evictions, 1)
  t.equal(evicted, 1)
  for (let i = 0; i < 1000; i++) near.put(`Z${String(i).padStart(3, '0')}`, entry('z'), near.ticket())
  t.equal(near.size, 3)
  t.equal(near.evictions, 1001)
})

t.test('entries of shards whose liveness changed are dropped; others stay', async (t) => {
  const near = live()
  near.put('AAAA', entry('a', 1), near.ticket())
  near.put('BBBB', entry('b', 2), near.ticket())
  near.put('CCCC', { record: undefined, presence: undefined }, near.ticket())
  near.dropShards([1, 3])
  t.equal(near.get('AAAA'), undefined)
  t.ok(near.get('BBBB'))
  t.ok(near.get('CCCC'))
})

t.test('colliding codes only cost a read: an invalidation never lets a stale put through', async (t) => {
  const near = live()
  const codes = Array.from({ length: 5000 }, (_, i) => i.toString(36).toUpperCase().padStart(4, '0'))
  const ticket = near.ticket()
  near.invalidate(codes)
  for (const code of codes) t.equal(near.put(code, entry('old'), ticket), false)
})

t.test('the view judges the presence shard at serve time', async (t) => {
  const e = entry('Playing,\nChess;\n', 4)
  t.same(nearView(e, (s) => s === 4), { kind: 'active', username: 'Someone', activity: 'Playing,\nChess;\n' })
  t.same(nearView(e, () => false), { kind: 'active', username: 'Someone', activity: '' })
  t.same(nearView({ record: undefined, presence: e.presence }, () => true), { kind: 'not_found' })
  t.same(nearView({ record: { ...e.record!, paused: true }, presence: e.presence }, () => true), { kind: 'paused' })
  t.same(nearView({ record: { ...e.record!, state: 'banned' }, presence: e.presence }, () => true), { kind: 'banned', username: 'Someone' })
})

t.test('an unchanged entry and liveness give the same view object; a change gives another', async (t) => {
  const e = entry('Playing,\nChess;\n', 4)
  const live = nearView(e, () => true)
  t.equal(nearView(e, () => true), live)
  const idle = nearView(e, () => false)
  t.not(idle, live)
  t.equal(nearView(e, () => false), idle)
  t.not(nearView(entry('Playing,\nChess;\n', 4), () => true), live, 'a new entry (a new read) gives a new object')
})

t.test('the version changes with every change of what get returns, and not with get', async (t) => {
  const near = createNearCache(2)
  const seen = new Set<number>([near.version])
  const changed = (what: string) => {
    t.notOk(seen.has(near.version), what)
    seen.add(near.version)
  }
  near.setLive(true)
  changed('going live')
  near.put('AAAA', entry('x'), near.ticket())
  changed('a put')
  const before = near.version
  near.get('AAAA')
  near.get('BBBB')
  t.equal(near.version, before, 'get changes nothing')
  t.equal(near.put('BBBB', entry('old'), near.ticket() - 1), false)
  t.equal(near.version, before, 'a refused put changes nothing')
  near.put('BBBB', entry('y', 4), near.ticket())
  changed('a second put')
  near.put('CCCC', entry('z'), near.ticket())
  changed('a put that evicts')
  near.invalidate(['AAAA'])
  changed('an invalidation')
  near.dropShards([4])
  changed('a shard drop')
  near.invalidateAll()
  changed('invalidating everything')
  near.setLive(false)
  changed('going down')
})

t.test('the view contract', async (t) => {
  t.test('an unchanged entry gives the same view objects, so its rendered answer can be kept', async (t) => {
    const a = entry('x')
    const b = entry('y')
    const isLive = () => true
    const first = [nearView(a, isLive), nearView(b, isLive)]
    t.equal(sameViews(first, [nearView(a, isLive), nearView(b, isLive)]), true, 'same entries, same liveness')
    t.equal(sameViews(first, first), true, 'the same list')
    t.equal(sameViews(first, [nearView(a, isLive), nearView(entry('y'), isLive)]), false, 'a replaced entry')
    t.equal(sameViews(first, [nearView(a, isLive), nearView(b, () => false)]), false, 'its shard lapsed')
    t.equal(sameViews(first, [nearView(b, isLive), nearView(a, isLive)]), false, 'another order')
    t.equal(sameViews(first, first.slice(0, 1)), false, 'fewer views')
    t.equal(sameViews([], []), true, 'no views')
  })
  t.test('a stamped answer holds only while both versions hold and within its span', async (t) => {
    const stamp = { version: 3, marks: 7, from: 1000, until: 2000 }
    const cases: Array<[number, number | undefined, number, boolean, string]> = [
      [3, 7, 1000, true, 'at its start'],
      [3, 7, 1999, true, 'just before its end'],
      [3, 7, 2000, false, 'at its end (a mark lapses)'],
      [3, 7, 999, false, 'before its start (the clock went back)'],
      [4, 7, 1500, false, 'the cache changed'],
      [3, 8, 1500, false, 'the marks were read again'],
      [3, undefined, 1500, false, 'marks without a version'],
    ]
    for (const [version, marks, at, holds, what] of cases) t.equal(stampHolds(stamp, version, marks, at), holds, what)
  })
})
