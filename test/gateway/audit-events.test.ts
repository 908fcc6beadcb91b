/** Audit events of whitelisted guilds to server-log entries, through the real gateway and the sandbox. */
import t from 'tap'
import { guildsCommand } from '../../src/cli/in-process.js'
import { startGateway } from '../../src/runtime/gateway-runtime.js'
import { createLogger } from '../../src/lib/logger.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { eventually } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'

const GENERAL = '100000000000000011'
const AUTHOR = { id: '820000000000000001', username: 'chatter', discriminator: '0', global_name: null, avatar: null, bot: false }

async function entry(g: GatewayStack, eventType: string, messageId?: string) {
  return eventually(async () => {
    let q = g.stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', eventType).where('source', '=', 'gateway')
    if (messageId !== undefined) q = q.where('description', 'like', `%${messageId}%`)
    return q.executeTakeFirst()
  }, 5000, `${eventType} entry`)
}

t.test('with message content on', async (t) => {
  const g = await startGatewayStack(t)
  await g.control('POST', 'members', { id: AUTHOR.id, username: AUTHOR.username })
  const guild = g.sandbox.defaultGuildId

  t.test('an edit stores before and after', async (t) => {
    const msg = await g.control<{ id: string }>('POST', 'messages', { channel_id: GENERAL, author_id: AUTHOR.id, content: 'first words' })
    await eventually(async () => ((await g.stack.redis.exists(g.stack.ctx.keys.message(msg.id))) === 1 ? true : undefined), 3000, 'message stored')
    await g.control('POST', 'dispatch', {
      t: 'MESSAGE_UPDATE',
      d: { id: msg.id, channel_id: GENERAL, guild_id: guild, content: 'second words', author: AUTHOR, edited_timestamp: new Date().toISOString() },
    })
    const row = await entry(g, 'message_edit', msg.id)
    t.equal(row.category, 'server')
    t.equal(row.description, `Message ${msg.id} by chatter (${AUTHOR.id}) edited in <#${GENERAL}>\nBefore: first words\nAfter: second words`)
    t.same(JSON.parse(row.data!), { guild_id: guild, channel_id: GENERAL, message_id: msg.id, author_id: AUTHOR.id, before: 'first words', after: 'second words' })
  })

  t.test('a link-preview update (no edited_timestamp) is not an edit', async (t) => {
    const msg = await g.control<{ id: string }>('POST', 'messages', { channel_id: GENERAL, author_id: AUTHOR.id, content: 'https://example.com' })
    await g.control('POST', 'dispatch', { t: 'MESSAGE_UPDATE', d: { id: msg.id, channel_id: GENERAL, guild_id: guild, embeds: [] } })
    await g.control('POST', 'dispatch', { t: 'MESSAGE_DELETE', d: { id: msg.id, channel_id: GENERAL, guild_id: guild } })
    await entry(g, 'message_delete', msg.id)
    const edits = await g.stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'message_edit').where('description', 'like', `%${msg.id}%`).execute()
    t.same(edits, [])
  })

  t.test('events of a guild that is not whitelisted are skipped until it is added', async (t) => {
    const other = await g.control<{ id: string }>('POST', 'guilds', { name: 'Elsewhere' })
    const user = { ...AUTHOR, id: '820000000000000003', username: 'outsider' }
    await g.control('POST', 'dispatch', { t: 'GUILD_BAN_ADD', d: { guild_id: other.id, user } })
    await g.control('POST', 'dispatch', { t: 'GUILD_BAN_ADD', d: { guild_id: guild, user: { ...user, id: '820000000000000004', username: 'marker' } } })
    await eventually(() => g.stack.db.selectFrom('log_entries').select('id').where('description', 'like', 'marker%').executeTakeFirst(), 5000, 'marker')
    t.same(await g.stack.db.selectFrom('log_entries').select('id').where('description', 'like', 'outsider%').execute(), [])
    const added = await guildsCommand(g.stack.ctx, ['add', other.id])
    t.same(added, { lines: [`whitelisted ${other.id}`], exitCode: 0 })
    await g.control('POST', 'dispatch', { t: 'GUILD_BAN_REMOVE', d: { guild_id: other.id, user } })
    const row = await eventually(() => g.stack.db.selectFrom('log_entries').selectAll().where('description', 'like', 'outsider%').executeTakeFirst(), 5000, 'outsider')
    t.equal(row.event_type, 'member_unban')
    t.same(JSON.parse(row.data!).guild_id, other.id)
  })

  t.test('a delete after a gateway restart still says what was written', async (t) => {
    const msg = await g.control<{ id: string }>('POST', 'messages', { channel_id: GENERAL, author_id: AUTHOR.id, content: 'remember me' })
    await eventually(async () => ((await g.stack.redis.exists(g.stack.ctx.keys.message(msg.id))) === 1 ? true : undefined), 3000, 'message stored')
    await g.gatewayCtx.shutdown.run('restart')
    const ctx = createProcessContext('gateway-2', g.stack.config, createLogger('gateway-2', 'silent'))
    t.teardown(() => ctx.shutdown.run('done'))
    await startGateway(ctx)
    await g.control('POST', 'dispatch', { t: 'MESSAGE_DELETE', d: { id: msg.id, channel_id: GENERAL, guild_id: guild } })
    const row = await entry(g, 'message_delete', msg.id)
    t.equal(row.description, `Message ${msg.id} by chatter (${AUTHOR.id}) deleted in <#${GENERAL}>: remember me`)
    t.equal(await g.stack.redis.exists(g.stack.ctx.keys.message(msg.id)), 0, 'the text is dropped once logged')

    t.test('a delete of a message never seen still gives an entry', async (t) => {
      await g.control('POST', 'dispatch', { t: 'MESSAGE_DELETE', d: { id: '820000000000000999', channel_id: GENERAL, guild_id: guild } })
      const unseen = await entry(g, 'message_delete', '820000000000000999')
      t.equal(unseen.description, `Message 820000000000000999 by an unknown author deleted in <#${GENERAL}>`)
    })

    t.test('a bulk delete lists every message', async (t) => {
      const a = await g.control<{ id: string }>('POST', 'messages', { channel_id: GENERAL, author_id: AUTHOR.id, content: 'spam one' })
      await eventually(async () => ((await g.stack.redis.exists(g.stack.ctx.keys.message(a.id))) === 1 ? true : undefined), 3000)
      await g.control('POST', 'dispatch', { t: 'MESSAGE_DELETE_BULK', d: { ids: [a.id, '820000000000000998'], channel_id: GENERAL, guild_id: guild } })
      const bulk = await entry(g, 'message_bulk_delete')
      t.equal(bulk.description, `2 messages deleted in <#${GENERAL}>\n${a.id} chatter: spam one\n820000000000000998: (not recorded)`)
    })

    t.test('join, leave, ban and unban are logged', async (t) => {
      const member = { id: '820000000000000002', username: 'joiner' }
      await g.control('POST', 'members', member)
      await g.control('DELETE', 'members', { id: member.id })
      const user = { ...AUTHOR, id: member.id, username: 'joiner' }
      await g.control('POST', 'dispatch', { t: 'GUILD_BAN_ADD', d: { guild_id: guild, user } })
      await g.control('POST', 'dispatch', { t: 'GUILD_BAN_REMOVE', d: { guild_id: guild, user } })
      for (const [type, verb] of [['member_join', 'joined'], ['member_leave', 'left'], ['member_ban', 'was banned'], ['member_unban', 'was unbanned']]) {
        const row = await eventually(() => g.stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', type!).where('description', 'like', '%820000000000000002%').executeTakeFirst(), 5000, type)
        t.equal(row.description, `joiner (820000000000000002) ${verb}`)
        t.equal(row.source, 'gateway')
        t.equal(row.issued_by, 'discord')
      }
    })
  })

})

t.test('with message content off, no message text is kept or logged', async (t) => {
  const g = await startGatewayStack(t, { env: { MESSAGE_CONTENT: 'off' } })
  await g.control('POST', 'members', { id: AUTHOR.id, username: AUTHOR.username })
  const msg = await g.control<{ id: string }>('POST', 'messages', { channel_id: GENERAL, author_id: AUTHOR.id, content: 'secret words' })
  await g.control('POST', 'dispatch', {
    t: 'MESSAGE_UPDATE',
    d: { id: msg.id, channel_id: GENERAL, guild_id: g.sandbox.defaultGuildId, content: '', author: AUTHOR, edited_timestamp: new Date().toISOString() },
  })
  const row = await entry(g, 'message_edit', msg.id)
  t.equal(row.description, `Message ${msg.id} by chatter (${AUTHOR.id}) edited in <#${GENERAL}>`)
  t.notOk(row.data!.includes('secret'))
  t.equal(await g.stack.redis.exists(g.stack.ctx.keys.message(msg.id)), 0)
})
