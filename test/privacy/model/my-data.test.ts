/** What /mydata says (src/privacy/model/my-data.ts): the text, its cap, the export, hostile stored text. */
import t from 'tap'
import { deletionLines, exportMyData, renderMyData, type MyData } from '../../../src/privacy/model/my-data.js'

const at = new Date('2026-11-28T17:00:00Z')
const base: MyData = {
  chatUserId: '1',
  code: { code: 'AB12', state: 'active', paused: false, chatUserId: '1', platformUserId: '156', platformUsername: 'Builderman', share: 'games', createdAt: at, boundAt: at },
  retiredCodes: [],
  presenceHeld: false,
  keyUses: [],
  windowHours: 24,
  infractions: { total: 0, latest: null },
  retention: { logRetentionDays: 90, messageRetentionDays: 7, forgetAfterLeaveDays: 30 },
}

t.test('a linked code, no uses, no infractions', async (t) => {
  t.equal(
    renderMyData(base),
    [
      '**What this service keeps about you**',
      'Code: **AB12** (active, linked; issued 2026-11-28 17:00 UTC)',
      'Game account: Builderman (id 156), linked 2026-11-28 17:00 UTC',
      'Share setting: games: games see only the games you play or compete in.',
      'Detection: on; live activity held now: no.',
      'Game keys that used your code in the last 24 h: none.',
      'Reads of callbacks, rpc and streams carry no key: which games read your code there is not recorded.',
      'Infractions: 0.',
      '**When it is deleted**',
      ...deletionLines(base.retention),
      'The attached mydata.json holds the same. /forget erases it.',
    ].join('\n'),
  )
})

t.test('no live code, retired codes, pruning off', async (t) => {
  const text = renderMyData({ ...base, code: null, retiredCodes: ['ZZ99', 'AA11'], retention: { ...base.retention, logRetentionDays: 0 } })
  t.match(text, 'Code: none (use /code to get one).')
  t.match(text, 'Retired codes on record: ZZ99, AA11.')
  t.match(text, 'kept until an operator deletes them (no log retention is set)')
})

t.test('hostile stored text stays on its line and the reply within 2,000 characters', async (t) => {
  const huge = 'x\n'.repeat(3000)
  const data: MyData = {
    ...base,
    keyUses: Array.from({ length: 40 }, (_, i) => ({ key: `key-${i}-${'k'.repeat(100)}`, logEntries: i, pushServers: 1 })),
    infractions: { total: 3, latest: { at, eventType: 'warn\nnext', description: huge, issuedBy: 'Mod\u202EboB' } },
  }
  const text = renderMyData(data)
  t.ok(text.length <= 2000, `${text.length} characters`)
  t.notMatch(text, 'x\nx', 'newlines of stored text are flattened')
  t.match(text, 'and 30 more (see the export)')
  const exported = exportMyData(data) as { key_uses: { keys: unknown[] }; infractions: { latest: { description: string } } }
  t.equal(exported.key_uses.keys.length, 40, 'the export holds every key')
  t.equal(exported.infractions.latest.description, huge, 'and the whole text')
})

t.test('the export', async (t) => {
  t.same(exportMyData({ ...base, presenceHeld: true, keyUses: [{ key: 'game-eu', logEntries: 2, pushServers: 1 }] }), {
    chat_user_id: '1',
    code: { code: 'AB12', state: 'active', paused: false, share: 'games', created_at: at.toISOString(), game_account: { username: 'Builderman', id: '156', linked_at: at.toISOString() } },
    retired_codes: [],
    live_activity_held: true,
    key_uses: { window_hours: 24, keys: [{ key: 'game-eu', log_entries: 2, push_servers: 1 }], public_reads_recorded: false },
    infractions: { total: 0, latest: null },
    deletion: deletionLines(base.retention).map((l) => l.slice(2)),
  })
})
