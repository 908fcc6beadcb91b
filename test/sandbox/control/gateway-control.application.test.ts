/**
 * The fake Developer Portal: IDENTIFY asking for a privileged intent that is switched off closes with 4014
 * "Disallowed intent(s).", a token other than the bot token gets 401 on REST and 4004 on IDENTIFY, as Discord
 * documents; `POST /control/application` changes both, and the real discord.js client sees the close codes.
 */
import { Client, Events, GatewayIntentBits } from 'discord.js'
import t, { type Test } from 'tap'
import { WebSocket } from 'ws'
import type { Sandbox } from '../../../src/sandbox/create-sandbox.js'
import { call, nextEvent, startSandbox } from '../fixtures/harness.js'

/** Opens a raw gateway connection, sends IDENTIFY and resolves with the close code and reason, or 'ready'. */
async function identify(t: Test, sandbox: Sandbox, token: string, intents: number): Promise<[number, string] | 'ready'> {
  const socket = new WebSocket(`${sandbox.gatewayUrl}/?v=10&encoding=json`)
  t.teardown(() => socket.terminate())
  await nextEvent(socket, 'open')
  const outcome = new Promise<[number, string] | 'ready'>((resolve) => {
    socket.on('close', (code: number, reason: Buffer) => resolve([code, reason.toString()]))
    socket.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { t?: string }).t === 'READY') resolve('ready')
    })
  })
  socket.send(JSON.stringify({ op: 2, d: { token, intents, properties: {}, shard: [0, 1] } }))
  return outcome
}

const MEMBERS = 1 << 1
const PRESENCES = 1 << 8
const CONTENT = 1 << 15
const SERVICE_INTENTS = 4871

t.test('privileged intents', async (t) => {
  const cases: Array<{ enabled: string[]; intents: number; outcome: [number, string] | 'ready' }> = [
    { enabled: ['GUILD_PRESENCES', 'GUILD_MEMBERS', 'MESSAGE_CONTENT'], intents: SERVICE_INTENTS | CONTENT, outcome: 'ready' },
    { enabled: [], intents: 1 | (1 << 9), outcome: 'ready' },
    { enabled: [], intents: SERVICE_INTENTS, outcome: [4014, 'Disallowed intent(s).'] },
    { enabled: ['GUILD_MEMBERS'], intents: SERVICE_INTENTS, outcome: [4014, 'Disallowed intent(s).'] },
    { enabled: ['GUILD_MEMBERS', 'GUILD_PRESENCES'], intents: SERVICE_INTENTS, outcome: 'ready' },
    { enabled: ['GUILD_MEMBERS', 'GUILD_PRESENCES'], intents: SERVICE_INTENTS | CONTENT, outcome: [4014, 'Disallowed intent(s).'] },
    { enabled: ['MESSAGE_CONTENT'], intents: PRESENCES, outcome: [4014, 'Disallowed intent(s).'] },
    { enabled: ['MESSAGE_CONTENT'], intents: MEMBERS, outcome: [4014, 'Disallowed intent(s).'] },
  ]
  for (const c of cases) {
    t.test(`switched on [${c.enabled.join(', ')}], IDENTIFY with ${c.intents}: ${JSON.stringify(c.outcome)}`, async (t) => {
      const sandbox = await startSandbox(t)
      const set = await call(sandbox, 'POST', '/control/application', { privileged_intents: c.enabled })
      t.equal(set.status, 200)
      t.same(await identify(t, sandbox, 'any-token', c.intents), c.outcome)
    })
  }

  t.test('the sandbox option starts with the given intents switched on; {} reads the settings', async (t) => {
    const sandbox = await startSandbox(t, { privilegedIntents: ['MESSAGE_CONTENT'] })
    t.same((await call(sandbox, 'POST', '/control/application', {})).body, { privileged_intents: ['MESSAGE_CONTENT'], token: 'any' })
    t.same(await identify(t, sandbox, 'any-token', PRESENCES), [4014, 'Disallowed intent(s).'])
  })

  t.test('discord.js sees shard 0 disconnect with 4014 and its login fails', async (t) => {
    const sandbox = await startSandbox(t, { privilegedIntents: [] })
    const client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildPresences], rest: { api: sandbox.apiBase } })
    t.teardown(() => client.destroy())
    const disconnected = nextEvent<[{ code: number }, number]>(client, Events.ShardDisconnect)
    await t.rejects(client.login('any-token'), { message: 'Used disallowed intents' })
    const [event, shard] = await disconnected
    t.same([event.code, shard], [4014, 0])
  })
})

t.test('the bot token', async (t) => {
  t.test('a reset makes REST answer 401 and IDENTIFY close with 4004 for the old token; the new one works', async (t) => {
    const sandbox = await startSandbox(t)
    t.same(await identify(t, sandbox, 'old-token', 1), 'ready')
    const reset = await call(sandbox, 'POST', '/control/application', { token: 'new-token' })
    t.same(reset.body, { privileged_intents: ['GUILD_PRESENCES', 'GUILD_MEMBERS', 'MESSAGE_CONTENT'], token: 'fixed' })
    const rest = await call(sandbox, 'GET', '/api/v10/gateway/bot', undefined, { authorization: 'Bot old-token' })
    t.same([rest.status, rest.body], [401, { message: '401: Unauthorized', code: 0 }])
    t.same(await identify(t, sandbox, 'old-token', 1), [4004, 'Authentication failed.'])
    t.same(await identify(t, sandbox, 'new-token', 1), 'ready')
    t.equal((await call(sandbox, 'GET', '/api/v10/gateway/bot', undefined, { authorization: 'Bot new-token' })).status, 200)
    t.same((await call<{ token: string }>(sandbox, 'POST', '/control/application', { token: null })).body.token, 'any')
    t.same(await identify(t, sandbox, 'old-token', 1), 'ready')
  })

  t.test('the token is checked before the intents, as Discord does', async (t) => {
    const sandbox = await startSandbox(t, { botToken: 'right', privilegedIntents: [] })
    t.same(await identify(t, sandbox, 'wrong', SERVICE_INTENTS), [4004, 'Authentication failed.'])
    t.same(await identify(t, sandbox, 'right', SERVICE_INTENTS), [4014, 'Disallowed intent(s).'])
  })
})

t.test('bad settings are refused with 400 and change nothing', async (t) => {
  const sandbox = await startSandbox(t)
  const bad: Array<[unknown, string]> = [
    [{ privileged_intents: 'GUILD_PRESENCES' }, 'privileged_intents must be a list of GUILD_PRESENCES, GUILD_MEMBERS and MESSAGE_CONTENT'],
    [{ privileged_intents: ['GUILD_MESSAGES'] }, 'privileged_intents must be a list of GUILD_PRESENCES, GUILD_MEMBERS and MESSAGE_CONTENT'],
    [{ privileged_intents: ['guild_presences'] }, 'privileged_intents must be a list of GUILD_PRESENCES, GUILD_MEMBERS and MESSAGE_CONTENT'],
    [{ token: '' }, 'token must be a non-empty string or null'],
    [{ token: 42 }, 'token must be a non-empty string or null'],
    [{ privileged_intents: [], token: '' }, 'token must be a non-empty string or null'],
  ]
  for (const [body, error] of bad) {
    const res = await call(sandbox, 'POST', '/control/application', body)
    t.same([res.status, res.body], [400, { error }], JSON.stringify(body))
  }
  t.same((await call(sandbox, 'POST', '/control/application', {})).body, { privileged_intents: ['GUILD_PRESENCES', 'GUILD_MEMBERS', 'MESSAGE_CONTENT'], token: 'any' })
})
