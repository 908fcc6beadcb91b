/** `presence-link infractions pardon` against real MariaDB: marks the row, keeps it, explains bad input. */
import t from 'tap'
import { infractionsCommand } from '../../src/cli/delivery-commands.js'
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
    [['pardon', 'abc'], 'error: infractions pardon needs an infraction ID (a positive whole number, as GET /api/v1/info lists it)'],
    [['pardon', '0'], 'error: infractions pardon needs an infraction ID (a positive whole number, as GET /api/v1/info lists it)'],
    [['pardon', '5', '--reason', ' '], 'error: --reason must be 1-200 characters'],
  ] as const) {
    const out = await infractionsCommand(stack.ctx, [...args])
    t.equal(out.exitCode, 64, args.join(' '))
    t.equal(out.lines[0], first)
  }
})
