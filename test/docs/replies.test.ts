/** docs/replies.md lists every reply and DM of the bot with its exact template, and nothing else. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { describeRefusal, INVALIDATED_MESSAGE, type ActionRefusal } from '../../src/codes/model/codes.js'
import { REPLIES, reply } from '../../src/gateway/model/replies.js'

const doc = readFileSync(new URL('../../docs/replies.md', import.meta.url), 'utf8')
const ROW = /^\| `(\w+)` \| (.+?) \| `(.*)` \|$/

function rows(section: string): Map<string, string> {
  const start = doc.indexOf(`\n## ${section}\n`)
  if (start === -1) throw new Error(`no section ${section}`)
  const end = doc.indexOf('\n## ', start + 1)
  const out = new Map<string, string>()
  for (const line of doc.slice(start, end === -1 ? undefined : end).split('\n')) {
    const m = ROW.exec(line)
    if (m !== null) out.set(m[1]!, m[3]!.replace(/\\n/g, '\n'))
  }
  return out
}

t.test('every reply key is in the table with its exact template, and every row is a reply key', async (t) => {
  const table = new Map([...rows('Member commands'), ...rows("DMs and the \"This wasn't me\" button"), ...rows('Staff commands')])
  for (const [key, text] of Object.entries(REPLIES)) t.equal(table.get(key), text, key)
  for (const key of table.keys()) t.ok(key in REPLIES, `${key} is a reply key`)
})

t.test('every refusal is in the table with its text', async (t) => {
  const table = rows('Refusals')
  const reasons: ActionRefusal[] = ['not_found', 'already_banned', 'not_banned', 'already_paused', 'not_paused', 'banned', 'invalidated']
  t.same([...table.keys()].sort(), [...reasons].sort())
  for (const r of reasons) t.equal(table.get(r), describeRefusal(r), r)
})

t.test('the bind endpoint\'s invalidated message is quoted exactly', async (t) => {
  t.ok(doc.includes(`\`${INVALIDATED_MESSAGE}\``))
})

t.test('a template filled without one of its values is a bug', async (t) => {
  t.throws(() => reply('staffDone', { action: 'ban' }), /no value for \{masked\}/)
  t.equal(reply('unwatched', { id: 7 }), 'Game account 7 is off the watchlist.')
  t.equal(reply('infoLineBy', { issuedBy: '{id} $& $1' }), ' by {id} $& $1', 'values are inserted as they are')
})
