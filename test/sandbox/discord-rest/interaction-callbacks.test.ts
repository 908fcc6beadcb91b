/** The sandbox's interactions with the real discord.js client: slash commands and component clicks, and the replies /control reports. */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Events,
  GatewayIntentBits,
  type Interaction,
} from 'discord.js'
import t from 'tap'
import type { InteractionReply } from '../../../src/sandbox/interactions.js'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, startClient, startSandbox } from '../fixtures/harness.js'

const PLAYER = { id: '200000000000000001', username: 'player_one' }

const LINK_COMMAND = {
  name: 'link',
  description: 'Link your Roblox account',
  options: [{ name: 'username', description: 'Roblox username', type: 3, required: true }],
}

/** What /control/commands and /control/components answer: the bot's reply and the interaction's id. */
type Reply = InteractionReply & { interaction_id: string }

interface ControlMessage {
  id: string
  channel_id: string
  dm_user_id?: string
  content: string
  components: unknown[]
}

const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages]

t.test('commands', async (t) => {
  t.test('commands set through client.application.commands show in /control/state', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents })
    const global = await client.application.commands.set([LINK_COMMAND])
    const guildOnly = await client.application.commands.set([{ name: 'unlink', description: 'Remove the link' }], sandbox.defaultGuildId)
    t.same([...global.values()].map((c) => c.name), ['link'])
    t.equal(guildOnly.first()?.guildId, sandbox.defaultGuildId)
    const state = await call<{ commands: { global: Array<Record<string, unknown>>; guild: Record<string, Array<Record<string, unknown>>> } }>(
      sandbox,
      'GET',
      '/control/state',
    )
    t.equal(state.body.commands.global.length, 1)
    t.match(state.body.commands.global[0], {
      id: global.first()?.id,
      application_id: sandbox.applicationId,
      name: 'link',
      description: 'Link your Roblox account',
      type: 1,
      options: [{ name: 'username', type: 3, required: true }],
    })
    t.same(Object.keys(state.body.commands.guild), [sandbox.defaultGuildId])
    t.match(state.body.commands.guild[sandbox.defaultGuildId], [{ name: 'unlink', guild_id: sandbox.defaultGuildId }])

    const again = await client.application.commands.set([LINK_COMMAND])
    t.equal(again.first()?.id, global.first()?.id, 'ids stay stable across re-registration')
  })

  t.test('/control/commands returns the ephemeral reply sent with interaction.reply', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents })
    await client.application.commands.set([LINK_COMMAND])
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const seen: Array<{ command: string; user: string; guild: string | null; channel: string | null; username: string | null }> = []
    client.on(Events.InteractionCreate, async (interaction: Interaction) => {
      if (!interaction.isChatInputCommand()) return
      const username = interaction.options.getString('username')
      seen.push({ command: interaction.commandName, user: interaction.user.id, guild: interaction.guildId, channel: interaction.channelId, username })
      await interaction.reply({ content: `Code for ${username ?? '?'}: ABC123`, ephemeral: true })
    })
    const res = await call<Reply>(sandbox, 'POST', '/control/commands', {
      user_id: PLAYER.id,
      name: 'link',
      options: [{ name: 'username', type: 3, value: 'Builderman' }],
    })
    t.equal(res.status, 200)
    t.match(res.body, { type: 4, content: 'Code for Builderman: ABC123', embeds: [], components: [], flags: 64 })
    t.same(seen, [{ command: 'link', user: PLAYER.id, guild: sandbox.defaultGuildId, channel: DefaultIds.general, username: 'Builderman' }])
    const messages = await call<ControlMessage[]>(sandbox, 'GET', '/control/messages')
    t.same(messages.body, [], 'interaction replies are not bot channel posts')
  })

  t.test('/control/commands returns the edited reply after deferReply and editReply', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    client.on(Events.InteractionCreate, async (interaction: Interaction) => {
      if (!interaction.isChatInputCommand()) return
      await interaction.deferReply({ ephemeral: true })
      await new Promise((resolve) => setTimeout(resolve, 20))
      await interaction.editReply({ content: 'Linked after a slow lookup' })
    })
    const res = await call<Reply>(sandbox, 'POST', '/control/commands', { user_id: PLAYER.id, name: 'status' })
    t.equal(res.status, 200)
    t.match(res.body, { type: 5, content: 'Linked after a slow lookup', embeds: [], components: [], flags: 64 })
  })

  t.test('a command the bot never answers gives 504 no reply', async (t) => {
    const sandbox = await startSandbox(t)
    await startClient(t, sandbox, { intents })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const res = await call(sandbox, 'POST', '/control/commands', { user_id: PLAYER.id, name: 'silent', timeout_ms: 100 })
    t.equal(res.status, 504)
    t.same(res.body, { error: 'no reply' })
  })

  t.test('a command from a user who is not a member is refused', async (t) => {
    const sandbox = await startSandbox(t)
    await startClient(t, sandbox, { intents })
    const res = await call(sandbox, 'POST', '/control/commands', { user_id: PLAYER.id, name: 'link' })
    t.equal(res.status, 404)
    t.same(res.body, { error: `unknown user ${PLAYER.id}` })
  })
})

t.test('components', async (t) => {
  t.test('a DM with a button is recorded and a click reaches interactionCreate as a button in the DM', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const user = await client.users.fetch(PLAYER.id)
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('confirm:42').setLabel('Confirm').setStyle(ButtonStyle.Success),
    )
    const sent = await user.send({ content: 'Confirm the link to Builderman?', components: [row] })

    const dms = await call<ControlMessage[]>(sandbox, 'GET', `/control/messages?user_id=${PLAYER.id}`)
    t.equal(dms.body.length, 1)
    t.match(dms.body[0], {
      id: sent.id,
      channel_id: sent.channelId,
      dm_user_id: PLAYER.id,
      content: 'Confirm the link to Builderman?',
      components: [{ type: 1, components: [{ type: 2, custom_id: 'confirm:42', label: 'Confirm', style: 3 }] }],
    })

    const clicks: Array<{ customId: string; user: string; guild: string | null; channelType: ChannelType | undefined; message: string }> = []
    client.on(Events.InteractionCreate, async (interaction: Interaction) => {
      if (!interaction.isButton()) return
      clicks.push({
        customId: interaction.customId,
        user: interaction.user.id,
        guild: interaction.guildId,
        channelType: interaction.channel?.type,
        message: interaction.message.id,
      })
      await interaction.update({ content: 'Linked to Builderman.', components: [] })
    })
    const res = await call<Reply>(sandbox, 'POST', '/control/components', { user_id: PLAYER.id, custom_id: 'confirm:42', message_id: sent.id })
    t.equal(res.status, 200)
    t.match(res.body, { type: 7, content: 'Linked to Builderman.', components: [], flags: 0, message_id: sent.id })
    t.same(clicks, [{ customId: 'confirm:42', user: PLAYER.id, guild: null, channelType: ChannelType.DM, message: sent.id }])
    const after = await call<ControlMessage[]>(sandbox, 'GET', `/control/messages?user_id=${PLAYER.id}`)
    t.match(after.body, [{ id: sent.id, content: 'Linked to Builderman.', components: [] }])
  })

  t.test('deferUpdate then editReply on a channel message answers type 6 with the edited message', async (t) => {
    const sandbox = await startSandbox(t)
    const client = await startClient(t, sandbox, { intents })
    await call(sandbox, 'POST', '/control/members', PLAYER)
    const channel = client.channels.cache.get(DefaultIds.moderationLog)
    if (!channel?.isSendable()) throw new Error('moderation-log missing')
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('ack').setLabel('Acknowledge').setStyle(ButtonStyle.Primary),
    )
    const sent = await channel.send({ content: 'Report #7', components: [row] })
    client.on(Events.InteractionCreate, async (interaction: Interaction) => {
      if (!interaction.isButton()) return
      await interaction.deferUpdate()
      await interaction.editReply({ content: `Report #7 (handled by ${interaction.user.username})`, components: [] })
    })
    const res = await call<Reply>(sandbox, 'POST', '/control/components', { user_id: PLAYER.id, custom_id: 'ack', message_id: sent.id })
    t.match(res.body, { type: 6, content: 'Report #7 (handled by player_one)', components: [], message_id: sent.id })
    const logged = await call<ControlMessage[]>(sandbox, 'GET', `/control/messages?channel_id=${DefaultIds.moderationLog}`)
    t.match(logged.body, [{ id: sent.id, content: 'Report #7 (handled by player_one)' }])
  })
})
