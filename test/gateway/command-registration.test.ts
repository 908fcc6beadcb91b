/**
 * A guild whose admin invited the bot without the `applications.commands` scope refuses its slash commands (403
 * Missing Access, 50001, as Discord answers): the gateway warns once for that guild, naming the fix, and keeps
 * serving every other guild. Before, one such guild made the gateway's start fail, so it restarted forever and no
 * presence reached any game.
 */
import { pino } from 'pino'
import t from 'tap'
import { startGatewayStack } from '../helpers/gateway-stack.js'

t.test('a guild that refuses slash commands', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  let refusingGuild = ''
  const g = await startGatewayStack(t, {
    log: pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
    beforeGateway: async (sandbox) => {
      const res = await fetch(`${sandbox.url}/control/guilds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Invited without commands', applications_commands: false }),
      })
      refusingGuild = ((await res.json()) as { id: string }).id
    },
  })

  t.test('the gateway starts, and warns once for that guild, naming the fix', async (t) => {
    t.same(
      lines.filter((l) => l.guild === refusingGuild).map((l) => ({ level: l.level, code: l.code, msg: l.msg })),
      [
        {
          level: 40,
          code: 50001,
          msg:
            'this guild refused the slash commands (403 Missing Access): the bot was invited without the applications.commands ' +
            'scope, so /code and /staff are missing there. Invite it again with the URL `presence-link discord invite-url` ' +
            'prints (docs/discord.md); presence and audit logging go on meanwhile.',
        },
      ],
    )
  })

  t.test('the other guilds get their commands and are served', async (t) => {
    const state = await g.control<{ commands: { guild: Record<string, Array<{ name: string }>> } }>('GET', 'state')
    t.same(state.commands.guild[refusingGuild] ?? [], [], 'nothing registered where it was refused')
    t.ok((state.commands.guild[g.sandbox.defaultGuildId] ?? []).some((c) => c.name === 'code'), '/code registered in the sandbox guild')
    const code = await g.codeFor('820000000000000001', 'stillserved')
    await g.bind(code, 'Still_Served', 77)
    t.equal(await g.callbacksUntil(code, (text) => text.includes('Still_Served')), `{${code};\nStill_Served;\nNo activity detected;\n}\n`)
  })
})
