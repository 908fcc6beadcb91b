/** A raw gateway presence to the stored presence entry (src/presence/model/presence-of.ts). */
import t from 'tap'
import { presenceEntryOf } from '../../../src/presence/model/presence-of.js'

t.test('online, idle and dnd users get an entry with rendered activities; offline and invisible get none', async (t) => {
  const activities = [{ type: 0, name: 'Minecraft' }, { type: 0, name: 'Roblox' }]
  for (const status of ['online', 'idle', 'dnd']) {
    t.same(presenceEntryOf({ user: { id: '1' }, status, activities }, 2, 'Roblox'), { shard: 2, status, activity: 'Playing,\nMinecraft;\n' })
  }
  for (const status of ['offline', 'invisible', null, undefined, 'weird']) {
    t.equal(presenceEntryOf({ user: { id: '1' }, status, activities }, 0, 'Roblox'), null, String(status))
  }
  t.same(presenceEntryOf({ user: { id: '1' }, status: 'online', activities: null }, 0, 'Roblox'), { shard: 0, status: 'online', activity: '' })
})
