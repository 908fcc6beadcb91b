/** The gateway's discord.js client options: intents, shards, REST base, no mentions, and the cache limits. */
import { LimitedCollection } from 'discord.js'
import t from 'tap'
import { createClientOptions } from '../../src/gateway/client-options.js'
import { botIntents, intentBits } from '../../src/gateway/model/bot-intents.js'

const CONFIG = { messageContent: false, shardIds: [0, 1], shardCount: 4, discordApi: '' }

/** The collection the options give the manager named `name`. */
function cacheOf(name: string): unknown {
  const manager = { name }
  return createClientOptions(CONFIG).makeCache!(manager as never, undefined as never, manager as never)
}

t.test('intents follow MESSAGE_CONTENT; shards and shard count are the configured ones; nothing is mentioned', async (t) => {
  const options = createClientOptions(CONFIG)
  t.equal(options.intents, intentBits(botIntents(false)))
  t.equal(createClientOptions({ ...CONFIG, messageContent: true }).intents, intentBits(botIntents(true)))
  t.same(options.shards, [0, 1])
  t.equal(options.shardCount, 4)
  t.same(options.allowedMentions, { parse: [] })
})

t.test('the REST base is Discord unless DISCORD_API names another', async (t) => {
  t.equal(createClientOptions(CONFIG).rest, undefined)
  t.same(createClientOptions({ ...CONFIG, discordApi: 'http://127.0.0.1:8090/api' }).rest, { api: 'http://127.0.0.1:8090/api' })
})

t.test('messages, presences, members and users are not cached (but the bot itself); guilds and channels are', async (t) => {
  for (const name of ['MessageManager', 'PresenceManager', 'GuildMemberManager', 'UserManager', 'VoiceStateManager']) {
    const cache = cacheOf(name)
    t.ok(cache instanceof LimitedCollection, `${name} is limited`)
    t.equal((cache as LimitedCollection<string, unknown>).maxSize, 0, `${name} holds nothing over its limit`)
  }
  for (const name of ['GuildManager', 'ChannelManager', 'GuildChannelManager', 'RoleManager']) {
    t.notOk(cacheOf(name) instanceof LimitedCollection, `${name} is not limited`)
  }
  const members = cacheOf('GuildMemberManager') as LimitedCollection<string, unknown> & { keepOverLimit: ((value: unknown) => boolean) | null }
  const member = (id: string) => ({ id, client: { user: { id: 'bot' } } })
  t.equal(members.keepOverLimit?.(member('bot')), true, "the bot's own member is kept")
  t.equal(members.keepOverLimit?.(member('someone')), false, 'any other member is not')
})
