/**
 * docs/discord.md shows exactly the code's tables (the permissions of src/gateway/model/bot-permissions.ts, the intents of
 * src/gateway/model/bot-intents.ts), the permission integer and invite URL the command prints, and the gateway's refusal
 * lines word for word: a change to one and not the other fails here.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { BOT_INTENTS, botIntents, intentBits } from '../../src/gateway/model/bot-intents.js'
import { BOT_PERMISSIONS, permissionInteger } from '../../src/gateway/model/bot-permissions.js'
import { refusalLine } from '../../src/gateway/model/discord-refusal.js'
import { inviteUrl } from '../../src/gateway/model/invite-url.js'

const doc = readFileSync(new URL('../../docs/discord.md', import.meta.url), 'utf8')

/** The rows (cells trimmed, header and rule left out) of the first table after the heading that starts with `heading`. */
function tableAfter(heading: string): string[][] {
  const table: string[][] = []
  for (const line of doc.slice(doc.indexOf(`\n## ${heading}`)).split('\n').slice(1)) {
    if (line.startsWith('|')) table.push(line.slice(1, -1).split('|').map((cell) => cell.trim()))
    else if (table.length > 0) break
  }
  return table.slice(2)
}

const bitText = (bit: bigint | number): string => `\`1 << ${BigInt(bit).toString(2).length - 1}\``

t.test('the permissions table is the code table', async (t) => {
  const rows = tableAfter('4. Invite the bot')
  t.ok(rows.length > 0, 'the table was found')
  t.same(
    rows,
    BOT_PERMISSIONS.map((p) => [`\`${p.name}\``, p.label, bitText(p.bit), p.why]),
  )
})

t.test('the intents table is the code table', async (t) => {
  const rows = tableAfter('3. Privileged intents')
  t.ok(rows.length > 0, 'the table was found')
  t.same(
    rows,
    BOT_INTENTS.map((i) => [`\`${i.name}\``, bitText(i.bit), i.portalSwitch ?? 'no', i.why]),
  )
})

t.test('the integers, the example output and the refusal lines are what the code gives', async (t) => {
  const permissions = permissionInteger(BOT_PERMISSIONS)
  t.ok(doc.includes(`integer **${permissions}**`), `the permission integer ${permissions}`)
  t.ok(doc.includes(`\nscopes: bot, applications.commands; permissions ${permissions}: ${BOT_PERMISSIONS.map((p) => p.label).join(', ')}\n`), 'the first line of the example')
  t.ok(doc.includes(`\n${inviteUrl('123456789012345678', permissions)}\n`), 'the example URL')
  t.ok(doc.includes(`intents ${intentBits(botIntents(false))}, or ${intentBits(botIntents(true))} with \`MESSAGE_CONTENT=on\``), 'the intents integers')
  for (const refusal of [{ kind: 'token', via: 'login' }, { kind: 'intents' }] as const) {
    const { message } = refusalLine(refusal, botIntents(false))
    t.ok(doc.includes(`"msg":${JSON.stringify(message)}`), `the ${refusal.kind} line`)
  }
})
