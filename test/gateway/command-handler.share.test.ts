/**
 * `/share show:` through the real gateway, front and push publisher against the sandbox: each setting changes what
 * callbacks, rpc, an open SSE stream and Open Cloud pushes carry, within seconds; the presence stored in Redis (the
 * one copy every reader and the near cache read) never holds what the setting hides once the command answered.
 */
import t from 'tap'
import { eventually, getText, postJson } from '../helpers/stack.js'
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js'
import { PUSH_TEST_SECRET } from '../helpers/push-world.js'
import { openSse } from '../helpers/stream-clients.js'
import { startPushConsumer } from '../../src/runtime/consumers.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { buildPushTargets } from '../../src/runtime/services.js'
import { openRedis } from '../../src/runtime/storage.js'
import { createLogger } from '../../src/lib/logger.js'

const UNIVERSE = 3101
const OPEN_CLOUD_KEY = 'open-cloud-key-of-the-share-universe-0123'
const GAME = { type: 0, name: 'Minecraft' }
const SONG = { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd' }
const VIDEO = { type: 3, name: 'YouTube', details: 'Cat videos' }
const STREAM = { type: 1, name: 'Twitch', details: 'Speedrun', state: 'Any%', url: 'https://twitch.tv/x' }
const MATCH = { type: 5, name: 'Chess' }

const GROUPS = {
  game: 'Playing,\nMinecraft;\n',
  song: 'Listening to Spotify,\nBlinding Lights,\nThe Weeknd;\n',
  video: 'Watching YouTube,\nCat videos;\n',
  stream: 'Streaming on Twitch,\nSpeedrun,\nAny%;\n',
  match: 'Competing in,\nChess;\n',
}
const SEEN = {
  everything: [GROUPS.game, GROUPS.song, GROUPS.video, GROUPS.stream, GROUPS.match],
  games: [GROUPS.game, GROUPS.match],
  media: [GROUPS.song, GROUPS.video, GROUPS.stream],
  nothing: [],
} as const

let g: GatewayStack
let openCloud = ''

t.before(async () => {
  g = await startGatewayStack(t, {
    envOf: (sandbox) => {
      openCloud = `${sandbox.url}/open-cloud`
      return { PUSH_SECRET: PUSH_TEST_SECRET, OPEN_CLOUD_API: openCloud }
    },
  })
})

const share = (user: string, show: string) =>
  g.control<{ content: string; flags: number }>('POST', 'commands', { user_id: user, name: 'share', options: [{ name: 'show', type: 3, value: show }] })

t.test('each setting, across callbacks, rpc, a stream and a push', async (t) => {
  const { user, code } = await g.linkedUser('820000000000000001', 'sharer', 'Share_R', 61)
  const added = await buildPushTargets(g.stack.db, PUSH_TEST_SECRET, openCloud).add('test-server', UNIVERSE, OPEN_CLOUD_KEY, 'test')
  if (!added.ok) throw new Error(`push add: ${added.reason}`)
  await g.control('POST', 'open-cloud', { keys: { [String(UNIVERSE)]: OPEN_CLOUD_KEY } })
  const ctx = createProcessContext('publisher', g.stack.config, createLogger('publisher', g.stack.config.logLevel))
  t.teardown(() => ctx.shutdown.run('test done'))
  const publisher = await startPushConsumer(ctx, { db: g.stack.db, redis: await openRedis(ctx, 'request', 'data') })
  ctx.shutdown.register('push', () => publisher.close())
  const subscribed = await postJson(`${g.stack.api}/push/subscriptions`, { universe_id: UNIVERSE, server_id: 'job-1', codes: [code] }, `Bearer ${g.stack.apiKey}`)
  t.equal(subscribed.status, 200)
  const sse = await openSse(g.stack.origin, `/api/v1/stream/${code}`)
  t.teardown(() => sse.close())
  await sse.next()

  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME, SONG, VIDEO, STREAM, MATCH] })
  const block = (groups: readonly string[]) => `{${code};\nShare_R;\n${groups.length === 0 ? 'No activity detected;\n' : groups.join('')}}\n`
  const rpcBlock = (groups: readonly string[]) => `{${code};\n${groups.join('')}}\n`
  await g.callbacksUntil(code, (text) => text === block(SEEN.everything), 'every activity shown by default')
  // The publisher's first look records the block; every change after it is pushed.
  await eventually(async () => ((await g.stack.redis.hget(g.stack.ctx.keys.pushSent(UNIVERSE), code)) === null ? undefined : true), 20_000, 'the publisher to record the block')
  // The blocks of this code that the fake Open Cloud received, oldest first.
  const pushedBlocks = async () => {
    const { messages } = await g.control<{ messages: Array<{ message: string }> }>('GET', `open-cloud/messages?universe_id=${UNIVERSE}`)
    return messages.flatMap((m) => (JSON.parse(m.message) as { blocks?: Record<string, string> }).blocks?.[code] ?? [])
  }

  for (const setting of ['games', 'media', 'nothing', 'everything'] as const) {
    t.test(setting, async (t) => {
      const pushedBefore = (await pushedBlocks()).length
      sse.events.length = 0
      const started = Date.now()
      const reply = await share(user, setting)
      t.equal(reply.flags & 64, 64, 'ephemeral')
      t.match(reply.content, /^Games now see /)
      const hidden = SEEN.everything.filter((group) => !SEEN[setting].includes(group as never))
      // Once the command answered, the stored presence (what every reader and the near cache read) hides them.
      const stored = (await g.stack.redis.hget(g.stack.ctx.keys.presence, code)) ?? ''
      for (const group of hidden) t.notMatch(stored, group, `the stored presence has no ${group.split(',')[0]}`)
      const expected = block(SEEN[setting])
      await g.callbacksUntil(code, (text) => text === expected, `callbacks under ${setting}`)
      // For the record (no assertion on time): from sending the command to callbacks showing the new block.
      t.comment(`${setting}: callbacks show it ${Date.now() - started} ms after the command was sent`)
      for (let i = 0; i < 3; i++) t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, expected, 'callbacks (near cache)')
      t.equal((await getText(`${g.stack.api}/rpc/${code}`)).text, rpcBlock(SEEN[setting]), 'rpc')
      await eventually(async () => (sse.events.some((e) => e.data === expected) ? true : undefined), 15_000, `the stream under ${setting}`)
      const streamed = [...sse.events]
      t.pass('the stream')
      const pushes = await eventually(async () => {
        const blocks = (await pushedBlocks()).slice(pushedBefore)
        return blocks.includes(expected) ? blocks : undefined
      }, 20_000, `a push under ${setting}`)
      t.ok(pushes.includes(expected), 'a push')
      // Between the answer and the new block a reader may see "No activity detected" (less), never a hidden group.
      for (const group of hidden) {
        t.notOk(streamed.some((e) => e.data.includes(group)), `no stream event after the answer shows ${group.split(',')[0]}`)
        t.notOk(pushes.some((b) => b.includes(group)), `no push after the answer shows ${group.split(',')[0]}`)
      }
    })
  }
})

t.test('replies: the setting, unchanged, paused, no code', async (t) => {
  const { user, code } = await g.linkedUser('820000000000000002', 'replies', 'Reply_R', 62)
  t.equal((await share(user, 'games')).content, 'Games now see only the games you play or compete in.')
  t.equal((await share(user, 'games')).content, 'Nothing changed: games already see only the games you play or compete in.')
  await g.control('POST', 'commands', { user_id: user, name: 'pause' })
  t.equal(
    (await share(user, 'media')).content,
    'Games now see only what you listen to, watch or stream.\nDetection is paused, so for now they see "Detection Paused"; /resume shows what you chose.',
  )
  t.equal((await getText(`${g.stack.api}/callbacks/${code}`)).text, `{${code}:\n"Detection Paused";\n}\n`, '/pause still wins')
  t.equal((await share(user, 'nothing')).content, 'Games now see no activity: your block says "No activity detected".\nDetection is paused, so for now they see "Detection Paused"; /resume shows what you chose.')
  t.equal((await share(user, 'everything')).content, 'Games now see all your activities (games, music, videos and streams).\nDetection is paused, so for now they see "Detection Paused"; /resume shows what you chose.')
  const codeless = '820000000000000003'
  await g.control('POST', 'members', { id: codeless, username: 'codeless' })
  t.equal((await share(codeless, 'games')).content, 'You have no code yet. Use /code to get one.')
  t.equal((await g.stack.db.selectFrom('codes').select('share').where('code', '=', code).executeTakeFirstOrThrow()).share, 'everything')
  t.equal(await g.stack.redis.hget(g.stack.ctx.keys.share, code), null, 'the default is not stored in Redis')
})

t.test('a presence filtered under the old setting is not written after a change (scripts/presence-put.lua)', async (t) => {
  const { user, code } = await g.linkedUser('820000000000000004', 'racer', 'Race_R', 63)
  await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [SONG] })
  await g.callbacksUntil(code, (text) => text.includes('Spotify'), 'the song shown')
  await share(user, 'nothing')
  t.equal(await g.stack.redis.hget(g.stack.ctx.keys.share, code), 'nothing')
  // The gateway's refresh after the change writes the user's presence again, under `nothing`.
  await eventually(async () => ((await g.stack.redis.hget(g.stack.ctx.keys.presence, code)) === '0|online|' ? true : undefined), 10_000, 'the refresh')
  t.equal(await g.stack.presence.set(code, { shard: 0, status: 'online', activity: GROUPS.song }, 'everything'), false, 'a write filtered under everything is refused')
  t.equal(await g.stack.redis.hget(g.stack.ctx.keys.presence, code), '0|online|', 'the stored presence is unchanged')
  t.equal(await g.stack.presence.set(code, { shard: 0, status: 'idle', activity: '' }, 'nothing'), true, 'a write under the current setting is taken')
})

t.test('a staff rotation keeps the setting on the new code', async (t) => {
  const { user, code } = await g.linkedUser('820000000000000005', 'rotated', 'Rot_R', 64)
  await share(user, 'media')
  const { code: fresh } = await g.stack.codes.rotate(user, { source: 'test' })
  t.not(fresh.code, code)
  t.equal(fresh.share, 'media')
  t.equal(await g.stack.redis.hget(g.stack.ctx.keys.share, fresh.code), 'media')
  t.equal(await g.stack.redis.hget(g.stack.ctx.keys.share, code), null, 'the retired code has no setting left in Redis')
})
