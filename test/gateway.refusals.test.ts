/**
 * The gateway entry (src/gateway.ts) as a real process against the sandbox, when Discord refuses the bot: a rejected
 * token (401 at login, or close 4004 after a token reset) and privileged intents that are not switched on (close
 * 4014). Each gives one fatal line naming the fix, no stack trace, and exit status 78.
 */
import t from 'tap'
import { createSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/create-sandbox.js'
import { startGatewayPart, type Part } from './helpers/parts.js'
import { startStack, type Stack, type Teardown } from './helpers/stack.js'

// Each case starts a gateway process with tap's TypeScript loader: slow on a loaded 2-core machine.
t.setTimeout(300_000)

const PORTAL = 'the Discord Developer Portal (https://discord.com/developers/applications)'
const TOKEN_FIX = `the token is wrong or was reset. Get a new one with "Reset Token" on the Bot page of the application in ${PORTAL}, put it in DISCORD_TOKEN, then start the gateway again.`
const INTENTS_4871 =
  'Discord refused the gateway intents (close 4014, disallowed intents): the bot asks for GUILDS, GUILD_MEMBERS, ' +
  'GUILD_MODERATION, GUILD_PRESENCES, GUILD_MESSAGES, DIRECT_MESSAGES (4871), of which GUILD_MEMBERS and ' +
  'GUILD_PRESENCES are privileged. Turn on "Server Members Intent" and "Presence Intent" under "Privileged Gateway ' +
  `Intents" on the Bot page of the application in ${PORTAL}, then start the gateway again.`

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

interface Sandboxed {
  sandbox: Sandbox
  /** The sandbox's own log lines (message and fields). */
  events: Array<Record<string, unknown>>
}

async function sandboxFor(t: Teardown, options: Partial<SandboxOptions>): Promise<Sandboxed> {
  const events: Array<Record<string, unknown>> = []
  const sandbox = await createSandbox({ port: 0, log: (msg, fields) => events.push({ msg, ...fields }), ...options })
  t.teardown(() => sandbox.close())
  return { sandbox, events }
}

function gatewayAgainst(t: Teardown, sandbox: Sandbox, token: string, env: Record<string, string> = {}): Part {
  return startGatewayPart(t, stack.config, sandbox.apiBase, { DISCORD_TOKEN: token, ...env })
}

/** Resolves with the exit status once the process has exited by itself (it is never killed here). */
function exitStatus(part: Part, timeoutMs = 120_000): Promise<number | string | null> {
  const { child } = part
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not exit; output:\n${part.lines().slice(-20).join('\n')}`)), timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(code ?? signal)
    })
  })
}

function severe(part: Part, level: number): Array<Record<string, unknown>> {
  return part.entries().filter((e) => typeof e.level === 'number' && e.level >= level)
}

t.test('a wrong token at the first start: one fatal line naming the fix, exit 78', async (t) => {
  const { sandbox } = await sandboxFor(t, { botToken: 'the-right-token' })
  const gateway = gatewayAgainst(t, sandbox, 'a-wrong-token')
  t.equal(await exitStatus(gateway), 78)
  const lines = severe(gateway, 50)
  t.same(
    lines.map((e) => [e.level, e.status, e.msg]),
    [[60, 401, `Discord rejected DISCORD_TOKEN (401 Unauthorized at login): ${TOKEN_FIX}`]],
    'the only error-or-worse line',
  )
  t.same(gateway.lines().filter((l) => l.includes('    at ') || l.includes('"stack"')), [], 'no stack trace')
  t.notOk(gateway.lines().some((l) => l.includes('a-wrong-token')), 'the token is not printed')
})

t.test('privileged intents not switched on: close 4014, one fatal line naming the intents and the switches, exit 78', async (t) => {
  const { sandbox, events } = await sandboxFor(t, { privilegedIntents: [] })
  const gateway = gatewayAgainst(t, sandbox, 'any-token')
  t.equal(await exitStatus(gateway), 78)
  t.same(
    severe(gateway, 50).map((e) => [e.level, e.closeCode, e.intents, e.privileged, e.msg]),
    [[60, 4014, 4871, ['GUILD_MEMBERS', 'GUILD_PRESENCES'], INTENTS_4871]],
    'the only error-or-worse line',
  )
  t.same(gateway.lines().filter((l) => l.includes('    at ') || l.includes('"stack"')), [], 'no stack trace')
  t.same(
    events.filter((e) => e.msg === 'gateway identify refused').map((e) => [e.code, e.disallowed]),
    [[4014, (1 << 1) | (1 << 8)]],
    'the sandbox refused IDENTIFY with 4014 for GUILD_MEMBERS and GUILD_PRESENCES',
  )
})

t.test('the token reset while the gateway runs: its next IDENTIFY gets 4004, one fatal line, exit 78', async (t) => {
  const { sandbox, events } = await sandboxFor(t, {})
  const gateway = gatewayAgainst(t, sandbox, 'the-old-token')
  await gateway.waitFor((e) => e.msg === 'gateway ready', 120_000, 'gateway ready')
  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}/control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as unknown }
  }
  t.same(await control('application', { token: 'the-new-token' }), { status: 200, body: { privileged_intents: ['GUILD_PRESENCES', 'GUILD_MEMBERS', 'MESSAGE_CONTENT'], token: 'fixed' } })
  // The connection drops (as connections do); the resume with the old token is refused, then IDENTIFY too.
  t.same(await control('disconnect', { shard: 0, code: 4000 }), { status: 200, body: { ended: 1 } })
  t.equal(await exitStatus(gateway, 60_000), 78)
  t.same(
    severe(gateway, 60).map((e) => [e.closeCode, e.msg]),
    [[4004, `Discord rejected DISCORD_TOKEN (gateway close 4004, authentication failed): ${TOKEN_FIX}`]],
    'one fatal line',
  )
  t.same(gateway.lines().filter((l) => l.includes('    at ') || l.includes('"stack"')), [], 'no stack trace')
  t.same(
    events.filter((e) => e.msg === 'gateway identify refused').map((e) => e.code),
    [4004],
    'the sandbox refused IDENTIFY with 4004',
  )
})
