/** `presence-link infractions list` and `pardon` against real MariaDB: filters and columns; a pardon marks the row and keeps it; bad input explained. */
import t from 'tap'
import { describeInfraction } from '../../src/cli/delivery-commands.js'
import { infractionsCommand } from '../../src/cli/in-process.js'
import { insertLogEntry } from '../../src/mysql/log-entry-rows.js'
import { countInfractionsOfPerson, insertInfraction } from '../../src/mysql/infraction-rows.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

t.test('pardon marks an infraction; it stays but stops counting', async (t) => {
  const { id: logId } = await insertLogEntry(stack.db, { dedupeKey: 'cli:1', category: 'moderation', eventType: 'warn', description: 'd', code: 'AAAA', source: 'test', receivedAt: new Date() })
  await insertInfraction(stack.db, { logEntryId: logId, code: 'AAAA', chatUserId: '900000000000000001', platformUserId: '11', platformUsername: null, eventType: 'warn', description: 'd', issuedBy: 'Mod' })
  const row = await stack.db.selectFrom('infractions').select('id').executeTakeFirstOrThrow()
  const id = String(row.id)
  t.equal(await countInfractionsOfPerson(stack.db, { platformUserId: '11' }), 1)
  const out = await infractionsCommand(stack.ctx, ['pardon', id, '--reason', 'mistake'])
  t.equal(out.exitCode, 0)
  t.equal(out.lines.at(-1), `pardoned infraction ${id} (warn on code AAAA, chat user 900000000000000001): kept in the log, no longer counted by the safety check`)
  t.equal(await countInfractionsOfPerson(stack.db, { platformUserId: '11' }), 0)
  const stored = await stack.db.selectFrom('infractions').select(['pardoned_by', 'pardon_reason']).where('id', '=', id).executeTakeFirstOrThrow()
  t.match(stored, { pardoned_by: /^cli:/, pardon_reason: 'mistake' })
  const again = await infractionsCommand(stack.ctx, ['pardon', id])
  t.equal(again.exitCode, 1)
  t.match(again.lines[0], new RegExp(`^error: infraction ${id} was already pardoned by cli:`))
  t.same(await infractionsCommand(stack.ctx, ['pardon', '424242']), { lines: ['error: no infraction 424242'], exitCode: 1 })
})

t.test('bad usage exits 64 with the reason', async (t) => {
  for (const [args, first] of [
    [['pardon', 'abc'], 'error: infractions pardon needs an infraction ID (a positive whole number, as infractions list shows it)'],
    [['pardon', '0'], 'error: infractions pardon needs an infraction ID (a positive whole number, as infractions list shows it)'],
    [['list', '--code', 'ab!d'], 'error: --code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [['list', '--code', 'ıabc'], 'error: --code needs a CODE of 4 characters A-Z or 0-9 (in any case)'],
    [['list', '--roblox-user', 'Builderman'], 'error: --roblox-user needs a Roblox user id (a positive whole number)'],
    [['list', '--roblox-user', '0'], 'error: --roblox-user needs a Roblox user id (a positive whole number)'],
    [['list', '--chat-user', 'alice'], 'error: --chat-user needs a Discord user id'],
    [['pardon', '5', '--reason', ' '], 'error: --reason must be 1-200 characters'],
  ] as const) {
    const out = await infractionsCommand(stack.ctx, [...args])
    t.equal(out.exitCode, 64, args.join(' '))
    t.equal(out.lines[0], first)
  }
})

/** Stores a moderation entry and its infraction; returns the infraction's id. */
async function infraction(n: number, i: { code: string; chatUserId: string; platformUserId: string | null; platformUsername: string | null; eventType: string; description: string; issuedBy: string | null }): Promise<string> {
  const { id: logEntryId } = await insertLogEntry(stack.db, { dedupeKey: `list:${n}`, category: 'moderation', eventType: i.eventType, description: i.description, code: i.code, source: 'test', receivedAt: new Date() })
  await insertInfraction(stack.db, { logEntryId, ...i })
  const row = await stack.db.selectFrom('infractions').select(['id', 'created_at']).where('log_entry_id', '=', logEntryId).executeTakeFirstOrThrow()
  return String(row.id)
}

t.test('list', async (t) => {
  await stack.db.deleteFrom('infractions').execute()
  const kick = await infraction(1, { code: '0PUK', chatUserId: '900000000000000002', platformUserId: '156', platformUsername: 'Builderman', eventType: 'kick', description: 'Exploiting', issuedBy: 'ModBob' })
  const hostile = await infraction(2, {
    code: '0PUK',
    chatUserId: '900000000000000002',
    platformUserId: '156',
    platformUsername: 'Builderman',
    eventType: 'ban',
    description: `two\tcolumns\nand a line \u001b[31mred\u001b[0m 🎮 ${'x'.repeat(4000)}`,
    issuedBy: 'Mod\nAlice',
  })
  const other = await infraction(3, { code: 'ZZ99', chatUserId: '900000000000000003', platformUserId: null, platformUsername: null, eventType: 'warn', description: 'spam', issuedBy: null })
  await infractionsCommand(stack.ctx, ['pardon', kick, '--reason', 'mistake'])
  const at = async (id: string) => (await stack.db.selectFrom('infractions').select(['created_at', 'pardoned_at']).where('id', '=', id).executeTakeFirstOrThrow())
  const [kickRow, hostileRow, otherRow] = [await at(kick), await at(hostile), await at(other)]

  const kickLine = `${kick}\t${kickRow.created_at.toISOString()}\t0PUK\troblox Builderman (156)\tchat user 900000000000000002\tkick\tExploiting\tissued by ModBob\tpardoned by ${(await stack.db.selectFrom('infractions').select('pardoned_by').where('id', '=', kick).executeTakeFirstOrThrow()).pardoned_by} at ${kickRow.pardoned_at!.toISOString()}`
  const hostileLine = `${hostile}\t${hostileRow.created_at.toISOString()}\t0PUK\troblox Builderman (156)\tchat user 900000000000000002\tban\ttwo columns and a line [31mred [0m 🎮 ${'x'.repeat(82)}…\tissued by Mod Alice\tcounting`
  const otherLine = `${other}\t${otherRow.created_at.toISOString()}\tZZ99\troblox -\tchat user 900000000000000003\twarn\tspam\tissued by -\tcounting`

  t.test('every infraction, newest first, one tab-separated line each, the count last', async (t) => {
    t.same(await infractionsCommand(stack.ctx, ['list']), { lines: [otherLine, hostileLine, kickLine, '3 infractions'], exitCode: 0 })
  })

  t.test('a description or issuer cannot add columns, lines or terminal escapes', async (t) => {
    const [line] = (await infractionsCommand(stack.ctx, ['list', '--code', '0PUK', '--limit', '1'])).lines
    const columns = line!.split('\t')
    t.equal(columns.length, 9)
    t.notOk(line!.includes('\u001b'))
    t.equal(Array.from(columns[6]!).length, 120, 'cut to 120 characters, the emoji kept whole')
  })

  t.test('filters: a code in any case, a Roblox user id, a chat user id', async (t) => {
    t.same(await infractionsCommand(stack.ctx, ['list', '--code', '0puk']), { lines: [hostileLine, kickLine, '2 infractions'], exitCode: 0 })
    t.same(await infractionsCommand(stack.ctx, ['list', '--roblox-user', '156']), { lines: [hostileLine, kickLine, '2 infractions'], exitCode: 0 })
    t.same(await infractionsCommand(stack.ctx, ['list', '--chat-user', '900000000000000003']), { lines: [otherLine, '1 infraction'], exitCode: 0 })
    t.same(await infractionsCommand(stack.ctx, ['list', '--code', 'zz99', '--roblox-user', '156']), { lines: ['no infractions'], exitCode: 0 })
  })

  t.test('a limit shows the newest N and says how to page on', async (t) => {
    t.same(await infractionsCommand(stack.ctx, ['list', '--limit', '2']), { lines: [otherLine, hostileLine, `3 infractions (2 shown; older ones: --before ${hostile})`], exitCode: 0 })
    t.same(await infractionsCommand(stack.ctx, ['list', '--limit', '2', '--before', hostile]), { lines: [kickLine, '3 infractions (1 shown)'], exitCode: 0 })
    t.equal((await infractionsCommand(stack.ctx, ['list', '--limit', '0'])).exitCode, 2)
    t.equal((await infractionsCommand(stack.ctx, ['list', '--limit', '1001'])).exitCode, 2)
  })

  t.test('pages of more than 100 are read through', async (t) => {
    for (let n = 10; n < 160; n++) await infraction(n, { code: 'PAGE', chatUserId: '900000000000000004', platformUserId: '42', platformUsername: 'Pager', eventType: 'warn', description: `w${n}`, issuedBy: 'Mod' })
    const out = await infractionsCommand(stack.ctx, ['list', '--code', 'page', '--limit', '1000'])
    t.equal(out.lines.length, 151)
    t.equal(out.lines.at(-1), '150 infractions')
    t.same(out.lines.slice(0, -1).map((l) => l.split('\t')[6]), Array.from({ length: 150 }, (_, i) => `w${159 - i}`))
  })
})

t.test('describeInfraction keeps a missing name and a pardon readable', async (t) => {
  const base = { id: '7', logEntryId: '1', code: 'AB12', chatUserId: '1', platformUserId: '5', platformUsername: null, eventType: 'kick', description: '', issuedBy: null, createdAt: new Date('2026-11-25T00:00:00Z'), pardon: null }
  t.equal(describeInfraction(base), '7\t2026-11-25T00:00:00.000Z\tAB12\troblox ? (5)\tchat user 1\tkick\t\tissued by -\tcounting')
  t.equal(
    describeInfraction({ ...base, pardon: { at: new Date('2026-11-26T00:00:00Z'), by: 'cli:root', reason: null } }).split('\t').at(-1),
    'pardoned by cli:root at 2026-11-26T00:00:00.000Z',
  )
})
