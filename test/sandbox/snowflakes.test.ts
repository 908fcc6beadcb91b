import t from 'tap'
import { createSnowflakes, isSnowflake, shardForGuild } from '../../src/sandbox/snowflakes.js'

t.test('shardForGuild', async (t) => {
  const cases: Array<[string, number, number]> = [
    ['100000000000000001', 1, 0],
    ['100000000000000001', 2, 0],
    ['41771983423143937', 2, 0],
    ['41771983423143937', 16, 6],
    ['41771983427338240', 2, 1],
    ['41771983427338240', 16, 7],
    ['0', 4, 0],
    ['18446744073709551615', 7, Number((18446744073709551615n >> 22n) % 7n)],
  ]
  for (const [id, count, shard] of cases) t.equal(shardForGuild(id, count), shard, `${id} over ${count} shards`)
})

t.test('createSnowflakes', async (t) => {
  t.test('ids are increasing even when the clock stands still or goes back', async (t) => {
    let now = 1_700_000_000_000
    const flakes = createSnowflakes(() => now)
    const a = flakes.next()
    const b = flakes.next()
    now -= 10_000
    const c = flakes.next()
    t.ok(BigInt(a) < BigInt(b) && BigInt(b) < BigInt(c))
    t.equal(BigInt(a) >> 22n, BigInt(now + 10_000) - 1420070400000n, 'the timestamp part is milliseconds since the Discord epoch')
  })

  t.test('the first id of a millisecond is the bare timestamp and 5,000 ids in one millisecond stay unique and increasing', async (t) => {
    const flakes = createSnowflakes(() => 1_700_000_000_000)
    const first = BigInt(flakes.next())
    t.equal(first, (1_700_000_000_000n - 1420070400000n) << 22n)
    let last = first
    let increasing = true
    for (let i = 0; i < 5000; i++) {
      const id = BigInt(flakes.next())
      if (id <= last) increasing = false
      last = id
    }
    t.ok(increasing)
    t.ok(last >> 22n > first >> 22n, 'past 4,096 ids the timestamp moves on instead of wrapping the increment')
  })

  t.test('nextOnShard lands on every requested shard and stays increasing', async (t) => {
    const flakes = createSnowflakes(() => 1_700_000_000_000)
    let last = 0n
    for (const [shard, count] of [[0, 2], [1, 2], [1, 2], [2, 3], [0, 1], [15, 16]] as const) {
      const id = flakes.nextOnShard(shard, count)
      t.equal(shardForGuild(id, count), shard, `shard ${shard} of ${count}`)
      t.ok(BigInt(id) > last)
      last = BigInt(id)
    }
  })
})

t.test('isSnowflake', async (t) => {
  const cases: Array<[unknown, boolean]> = [
    ['100000000000000001', true],
    ['1', true],
    ['', false],
    ['12a', false],
    ['123456789012345678901', false],
    [123, false],
    [' 1', false],
    ['1\n', false],
  ]
  for (const [value, expected] of cases) t.equal(isSnowflake(value), expected, JSON.stringify(value))
})
