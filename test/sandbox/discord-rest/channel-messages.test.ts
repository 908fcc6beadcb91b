import { DiscordAPIError, GatewayIntentBits } from 'discord.js'
import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, startClient, startSandbox } from '../fixtures/harness.js'

t.test('channel messages', async (t) => {
  t.test('the bot posts to a log channel, and an injected 403 is Missing Permissions', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents: [GatewayIntentBits.Guilds] })
    const channel = client.channels.cache.get(DefaultIds.ingameLog)
    if (!channel?.isSendable()) throw new Error('ingame-log missing')
    const sent = await channel.send({ content: '[7f3a] player_one: hi' })
    const edited = await sent.edit({ content: '[7f3a] player_one: hi (edited)' })
    t.equal(edited.content, '[7f3a] player_one: hi (edited)')
    const recorded = await call<Array<Record<string, unknown>>>(sandbox, 'GET', `/control/messages?channel_id=${DefaultIds.ingameLog}`)
    t.match(recorded.body, [{ id: sent.id, channel_id: DefaultIds.ingameLog, content: '[7f3a] player_one: hi (edited)' }])
    t.equal(recorded.body.length, 1)
    t.equal(recorded.body[0]?.webhook_id, undefined)

    await call(sandbox, 'POST', `/control/channels/${DefaultIds.ingameLog}/fail`, { status: 403 })
    const error = await channel.send({ content: 'denied' }).then(
      () => null,
      (e: unknown) => e,
    )
    t.ok(error instanceof DiscordAPIError)
    t.equal((error as DiscordAPIError).code, 50013)

    await sent.delete()
    const gone = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.ingameLog}/messages/${sent.id}`, undefined, {
      authorization: 'Bot sandbox-token',
    })
    t.same(gone.body, { message: 'Unknown Message', code: 10008 })
  })
})
