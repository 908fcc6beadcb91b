/** Several shards in one gateway process against the sandbox. */
import t from 'tap'
import { startGateway } from '../../src/runtime/gateway-runtime.js'
import { createLogger } from '../../src/lib/logger.js'
import { createProcessContext } from '../../src/runtime/process-context.js'
import { eventually } from '../helpers/stack.js'
import { startGatewayStack } from '../helpers/gateway-stack.js'

const GAME = { type: 0, name: 'Minecraft' }

t.test('two shards: a guild on shard 1 feeds presence through shard 1, and both shards keep their live marks', async (t) => {
  const g = await startGatewayStack(t, { shards: 2 })
  const guild = await g.control<{ id: string; shard: number }>('POST', 'guilds', { name: 'Shard One Guild', shard: 1 })
  t.equal(guild.shard, 1)
  const user = '830000000000000001'
  const code = await g.codeFor(user, 'sharded', guild.id)
  await g.bind(code, 'Shard_R', 60)
  const sent = await g.control('POST', 'presence', { user_id: user, status: 'online', activities: [GAME] })
  t.same(sent.shards, [1])
  t.equal(await g.callbacksUntil(code, (s) => s.includes('Minecraft')), `{${code};\nShard_R;\nPlaying,\nMinecraft;\n}\n`)
  t.match(await g.stack.redis.hget(g.stack.ctx.keys.presence, code), /^1\|online\|/)
  const marks = await g.stack.redis.hgetall(g.stack.ctx.keys.presenceShards)
  t.same(Object.keys(marks).sort(), ['0', '1'])
  t.same(g.gateway.client.ws.shards.map((s) => s.id).sort(), [0, 1])
})

t.test('a gateway that starts resyncs: changes made while it was down show, and entries Discord no longer backs are removed', async (t) => {
  const g = await startGatewayStack(t)
  const comer = '830000000000000002'
  const goer = '830000000000000003'
  const comerCode = await g.codeFor(comer, 'comer')
  const goerCode = await g.codeFor(goer, 'goer')
  await g.bind(comerCode, 'Comer_R', 61)
  await g.bind(goerCode, 'Goer_R', 62)
  await g.control('POST', 'presence', { user_id: goer, status: 'online', activities: [GAME] })
  await g.callbacksUntil(goerCode, (s) => s.includes('Minecraft'))

  await g.gatewayCtx.shutdown.run('down for maintenance')
  await g.control('POST', 'presence', { user_id: comer, status: 'online', activities: [GAME] })
  await g.control('POST', 'presence', { user_id: goer, status: 'offline', activities: [] })
  t.equal(await g.stack.redis.hexists(g.stack.ctx.keys.presence, goerCode), 1, 'the stale entry is still stored while the gateway is down')
  t.equal(await g.callbacksUntil(goerCode, (s) => s.includes('No activity')), `{${goerCode};\nGoer_R;\nNo activity detected;\n}\n`, 'but not served')

  const ctx = createProcessContext('gateway-2', g.stack.config, createLogger('gateway-2', 'silent'))
  t.teardown(() => ctx.shutdown.run('done'))
  await startGateway(ctx)
  t.equal(await g.callbacksUntil(comerCode, (s) => s.includes('Minecraft')), `{${comerCode};\nComer_R;\nPlaying,\nMinecraft;\n}\n`)
  t.equal(await g.callbacksUntil(goerCode, () => true), `{${goerCode};\nGoer_R;\nNo activity detected;\n}\n`)
  await eventually(async () => ((await g.stack.redis.hexists(g.stack.ctx.keys.presence, goerCode)) === 0 ? true : undefined), 5000, 'sweep')
  t.pass('the offline user\'s entry was swept')
})
