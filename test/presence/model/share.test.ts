/** The share settings (src/presence/model/share.ts) and their effect on rendering: which groups each keeps. */
import t from 'tap'
import { describeShare, isShareSetting, SHARE_SETTINGS, shareShows } from '../../../src/presence/model/share.js'
import { MAX_ACTIVITIES, renderActivityGroups } from '../../../src/presence/model/activity.js'
import { presenceEntryOf } from '../../../src/presence/model/presence-of.js'

t.test('which Discord activity types each setting shows', async (t) => {
  const cases: Array<[string, number[]]> = [
    ['everything', [0, 1, 2, 3, 5]],
    ['games', [0, 5]],
    ['media', [1, 2, 3]],
    ['nothing', []],
  ]
  for (const [share, types] of cases) {
    for (const type of [0, 1, 2, 3, 4, 5, 6, -1, 99]) {
      t.equal(shareShows(share as never, type), types.includes(type), `${share} ${type}`)
    }
  }
})

t.test('isShareSetting accepts the four names only', async (t) => {
  for (const s of SHARE_SETTINGS) t.ok(isShareSetting(s), s)
  for (const s of ['', 'Everything', 'GAMES', 'music', ' games', 'nothing\n', null, undefined, 1, {}, 'x'.repeat(4000)]) t.notOk(isShareSetting(s), JSON.stringify(s))
  for (const s of SHARE_SETTINGS) t.ok(describeShare(s).length > 0)
})

t.test('rendering under each setting', async (t) => {
  const all = [
    { type: 2, name: 'Spotify', details: 'Song', state: 'Artist' },
    { type: 0, name: 'Minecraft' },
    { type: 4, name: 'Custom Status', state: 'hello' },
    { type: 3, name: 'YouTube', details: 'Cats' },
    { type: 5, name: 'Chess' },
    { type: 1, name: 'Twitch', details: 'Run' },
  ]
  t.equal(renderActivityGroups(all, 'Roblox', 'games'), 'Playing,\nMinecraft;\nCompeting in,\nChess;\n')
  t.equal(renderActivityGroups(all, 'Roblox', 'media'), 'Listening to Spotify,\nSong,\nArtist;\nWatching YouTube,\nCats;\nStreaming on Twitch,\nRun;\n')
  t.equal(renderActivityGroups(all, 'Roblox', 'nothing'), '')
  t.equal(renderActivityGroups(all, 'Roblox'), renderActivityGroups(all, 'Roblox', 'everything'), 'everything is the default')
  t.equal(renderActivityGroups([{ type: 0, name: 'Roblox' }, { type: 5, name: 'Chess' }], 'Roblox', 'games'), 'Competing in,\nChess;\n', 'the platform filter still applies')
  const songs = Array.from({ length: 8 }, (_, i) => ({ type: 2, name: `S${i}` }))
  t.equal(renderActivityGroups([...songs, { type: 0, name: 'Late game' }], 'Roblox', 'games'), 'Playing,\nLate game;\n', 'hidden groups take no room')
  t.equal(renderActivityGroups(songs, 'Roblox', 'media').split(';').length - 1, MAX_ACTIVITIES)
})

t.test('presenceEntryOf: nothing keeps the status and an empty activity; offline is still cleared', async (t) => {
  const raw = { user: { id: '1' }, status: 'dnd', activities: [{ type: 0, name: 'Game' }] }
  t.same(presenceEntryOf(raw, 2, 'Roblox', 'nothing'), { shard: 2, status: 'dnd', activity: '' })
  t.same(presenceEntryOf(raw, 2, 'Roblox', 'media'), { shard: 2, status: 'dnd', activity: '' })
  t.same(presenceEntryOf(raw, 2, 'Roblox', 'games'), { shard: 2, status: 'dnd', activity: 'Playing,\nGame;\n' })
  t.equal(presenceEntryOf({ ...raw, status: 'offline' }, 2, 'Roblox', 'games'), null)
})
