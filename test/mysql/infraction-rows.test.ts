/** Infraction rows: pages newest first under every filter, counts and pardons (src/mysql/infraction-rows.ts). */
import t from 'tap'
import { insertLogEntry } from '../../src/mysql/log-entry-rows.js'
import { countInfractions, countInfractionsOfPerson, insertInfraction, listInfractions, pardonInfraction } from '../../src/mysql/infraction-rows.js'
import { startStack } from '../helpers/stack.js'

t.test('infractions', async (t) => {
  const stack = await startStack(t, { front: false, consumers: [] })
  const add = async (n: number, code: string, chatUserId: string, platformUserId: string | null) => {
    const { id } = await insertLogEntry(stack.db, { dedupeKey: `t:${n}`, category: 'moderation', eventType: `e${n}`, description: `d${n}`, code, source: 'test', receivedAt: new Date() })
    await insertInfraction(stack.db, { logEntryId: id, code, chatUserId, platformUserId, platformUsername: null, eventType: `e${n}`, description: `d${n}`, issuedBy: 'Mod' })
  }
  await add(1, 'AAAA', '900000000000000001', '11')
  await add(2, 'AAAA', '900000000000000001', '11')
  await add(3, 'BBBB', '900000000000000002', '22')
  await add(4, 'CCCC', '900000000000000001', null)
  await add(5, 'AAAA', '900000000000000001', '11')

  t.test('listInfractions pages newest first under every filter', async (t) => {
    const cases: Array<[string, Parameters<typeof listInfractions>[1], string[], boolean]> = [
      ['all, one page', { limit: 20 }, ['e5', 'e4', 'e3', 'e2', 'e1'], false],
      ['by code', { code: 'AAAA', limit: 20 }, ['e5', 'e2', 'e1'], false],
      ['by chat user, across codes', { chatUserId: '900000000000000001', limit: 20 }, ['e5', 'e4', 'e2', 'e1'], false],
      ['by platform user', { platformUserId: '22', limit: 20 }, ['e3'], false],
      ['code and chat user together', { code: 'CCCC', chatUserId: '900000000000000001', limit: 20 }, ['e4'], false],
      ['a first page of two', { chatUserId: '900000000000000001', limit: 2 }, ['e5', 'e4'], true],
      ['nothing matches', { code: 'ZZZZ', limit: 20 }, [], false],
      ['a limit above 100 is held to 100', { limit: 1000 }, ['e5', 'e4', 'e3', 'e2', 'e1'], false],
    ]
    for (const [name, opts, events, more] of cases) {
      t.test(name, async (t) => {
        const page = await listInfractions(stack.db, opts)
        t.same(page.infractions.map((i) => i.eventType), events)
        t.equal(page.nextBefore !== null, more)
      })
    }
    t.test('following next_before walks every page once', async (t) => {
      const seen: string[] = []
      let before: string | undefined
      for (;;) {
        const page = await listInfractions(stack.db, { limit: 2, ...(before === undefined ? {} : { before }) })
        seen.push(...page.infractions.map((i) => i.eventType))
        if (page.nextBefore === null) break
        before = page.nextBefore
      }
      t.same(seen, ['e5', 'e4', 'e3', 'e2', 'e1'])
    })
  })

  t.test('counts', async (t) => {
    t.equal(await countInfractions(stack.db, {}), 5)
    t.equal(await countInfractions(stack.db, { code: 'AAAA' }), 3)
    t.equal(await countInfractions(stack.db, { chatUserId: '900000000000000001', platformUserId: '11' }), 3)
    t.equal(await countInfractionsOfPerson(stack.db, { chatUserId: '900000000000000001', platformUserId: '22' }), 5, 'either id matches')
    t.equal(await countInfractionsOfPerson(stack.db, { platformUserId: '11' }), 3)
    t.equal(await countInfractionsOfPerson(stack.db, { chatUserId: null, platformUserId: null }), 0)
  })

  t.test('a pardon keeps the row, is shown, and takes it out of the person count (after the counts above)', async (t) => {
    const [target] = (await listInfractions(stack.db, { code: 'AAAA', limit: 1 })).infractions
    const first = await pardonInfraction(stack.db, target!.id, 'Boss', 'wrong player')
    t.equal(first.outcome, 'pardoned')
    t.match(first, { infraction: { id: target!.id, pardon: { by: 'Boss', reason: 'wrong player' } } })
    const again = await pardonInfraction(stack.db, target!.id, 'Other', null)
    t.match(again, { outcome: 'already_pardoned', infraction: { pardon: { by: 'Boss', reason: 'wrong player' } } }, 'the first pardon is kept')
    t.same(await pardonInfraction(stack.db, '999999', 'Boss', null), { outcome: 'not_found' })
    t.equal(await countInfractions(stack.db, { code: 'AAAA' }), 3, 'still in the log')
    t.equal(await countInfractions(stack.db, { code: 'AAAA', pardoned: true }), 1)
    t.equal(await countInfractions(stack.db, { code: 'AAAA', pardoned: false }), 2)
    t.equal(await countInfractionsOfPerson(stack.db, { platformUserId: '11' }), 2, 'the safety count skips it')
    const listed = await listInfractions(stack.db, { code: 'AAAA', limit: 20 })
    t.same(listed.infractions.map((i) => i.pardon !== null), [true, false, false])
  })
})
