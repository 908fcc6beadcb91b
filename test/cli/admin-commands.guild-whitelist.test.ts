/** The lines of `guilds list` and the gateway's published record, pure: every source of a guild, and records that are not one. */
import t from 'tap'
import { describeGuildWhitelist } from '../../src/cli/admin-commands.js'
import { parsePublishedWhitelist } from '../../src/redis/gateway-whitelist.js'

const NO_GATEWAY = 'note: no gateway has published its GUILD_WHITELIST under this REDIS_PREFIX (each does when it starts), so the guilds it adds are not shown'

t.test('describeGuildWhitelist marks a stored guild the gateway cannot see, and one it sees that MySQL lacks', async (t) => {
  const at = new Date('2026-11-25T00:00:00Z')
  const stored = [{ guildId: '1', addedBy: 'cli:op', addedAt: at }, { guildId: '2', addedBy: 'staff', addedAt: at }]
  t.same(describeGuildWhitelist({ published: undefined, ownEnv: ['9'], stored, copy: ['2', '3'] }), [
    NO_GATEWAY,
    "9\tGUILD_WHITELIST of this command's environment, not necessarily the gateway's",
    "1\tadded by cli:op at 2026-11-25T00:00:00.000Z\tmissing from the gateway's Redis copy: not logged until `guilds add` again or a gateway restart",
    '2\tadded by staff at 2026-11-25T00:00:00.000Z',
    "3\tin the gateway's Redis copy only (not in MySQL): logged until the next gateway restart",
  ])
  t.same(describeGuildWhitelist({ published: { guilds: [], shards: [0, 1], shardCount: 4, at }, ownEnv: ['9'], stored: [], copy: [] }), ['no whitelisted guilds'])
  t.same(describeGuildWhitelist({ published: { guilds: ['5'], shards: [2, 3], shardCount: 4, at }, ownEnv: [], stored: [], copy: [] }), [
    '5\tGUILD_WHITELIST of the gateway (shards 2,3 of 4, started 2026-11-25T00:00:00.000Z)',
  ])
})

t.test('a published record that is not one reads as none', async (t) => {
  for (const text of ['', 'null', '[]', '{"guilds":"1","shards":[0],"shardCount":1,"at":"2026-11-25T00:00:00Z"}', '{"guilds":[1],"shards":[0],"shardCount":1,"at":"2026-11-25T00:00:00Z"}', '{"guilds":[],"shards":[0],"shardCount":1,"at":"soon"}']) {
    t.equal(parsePublishedWhitelist(text), undefined, text)
  }
  t.same(parsePublishedWhitelist('{"guilds":["7"],"shards":[0],"shardCount":1,"at":"2026-11-25T00:00:00.000Z"}'), { guilds: ['7'], shards: [0], shardCount: 1, at: new Date('2026-11-25T00:00:00Z') })
})
