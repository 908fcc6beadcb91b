/**
 * Redis through Sentinel (issue 22, item 1), on private processes: a primary, its replica and three Sentinels. The
 * service (front and worker) starts with only the Sentinels' addresses; the primary is SIGKILLed; Sentinel promotes the
 * replica; without a restart the front answers callbacks 200 and accepts logs again, and a bind (the worker's
 * code-put.lua, never run on the new primary: the NOSCRIPT case) succeeds there. The near cache is dropped with the
 * failover: a change written on the new primary without a feed message (as one made while the feed was away) shows.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { luaSource } from '../../src/redis/lua-scripts.js'
import { createSandbox } from '../../src/sandbox/create-sandbox.js'
import { onNode, replicatedRedis } from '../helpers/replicated-redis.js'
import { eventually, getText, postJson, startStack } from '../helpers/stack.js'

const API_KEY = 'sentinel-test-bootstrap-key-0123456789ab'
const auth = `Bearer ${API_KEY}`

// The Redis processes outlive the service: the stack is closed at the end of the inner test, before they are killed.
t.test('through Sentinel', async (t) => {
  const nodes = await replicatedRedis(t, { sentinels: true })
  t.test('the primary is killed: Sentinel promotes the replica and the service carries on without a restart', async (t) => {
    const sandbox = await createSandbox({ port: 0 })
    t.teardown(() => sandbox.close())
    const stack = await startStack(t, {
      env: {
        REDIS_URL: '',
        REDIS_SENTINELS: nodes.sentinelList,
        REDIS_SENTINEL_NAME: nodes.name,
        RATE_LIMITS: 'off',
        API_KEY,
        ROBLOX_USERS_API: sandbox.robloxBase,
      },
    })
    t.equal(await nodes.primaryPort(), nodes.primary.port, 'the service started from the Sentinels alone, on the primary')
    const code = (await stack.codes.issue('310000000000000001')).code.code
    t.equal((await postJson(`${stack.api}/bind`, { code, platform_username: 'Before_Failover', platform_user_id: 5151 }, auth)).status, 200)
    const callbacks = () => getText(`${stack.api}/callbacks/${code}`)
    const before = `{${code};\nBefore_Failover;\nNo activity detected;\n}\n`
    await eventually(async () => ((await callbacks()).text === before ? true : undefined), 10_000, 'the bound code shown')
    t.equal((await callbacks()).text, before, 'shown again (from the near cache)')

    await nodes.primary.kill()
    await eventually(async () => ((await nodes.primaryPort()) === nodes.replica.port ? true : undefined), 30_000, 'Sentinel promoting the replica')
    const codePut = createHash('sha1').update(luaSource('code-put')).digest('hex')
    t.same(await onNode(nodes.replica.port, (r) => r.script('EXISTS', codePut)), [0], 'the new primary has never run code-put.lua')

    // The change a front could only see after dropping its near cache: no feed message goes with it.
    const record = await onNode(nodes.replica.port, (r) => r.hget(`${stack.ctx.keys.codes}`, code))
    t.ok(record !== null, 'the replica had the bind')
    const fields = (record ?? '').split('|')
    fields[3] = 'On_New_Primary'
    fields[4] = String(Number(fields[4]) + 1)
    await onNode(nodes.replica.port, (r) => r.hset(stack.ctx.keys.codes, code, fields.join('|')))
    const after = `{${code};\nOn_New_Primary;\nNo activity detected;\n}\n`
    let lastCallbacks = ''
    await eventually(async () => {
      const res = await callbacks()
      lastCallbacks = `${res.status} ${JSON.stringify(res.text)}`
      return res.text === after ? true : undefined
    }, 30_000, 'callbacks showing the new primary').catch((err: Error) => {
      throw new Error(`${err.message}; the last answer: ${lastCallbacks}`)
    })
    t.equal((await callbacks()).status, 200, 'callbacks answer 200 on the new primary')

    const logged = await eventually(async () => {
      const res = await postJson(`${stack.api}/log/server`, { event_type: 'after_failover', description: 'on the new primary' }, auth)
      return res.status === 200 ? res : undefined
    }, 30_000, 'a log accepted after the failover')
    t.same(logged.body, { status: 'logged', category: 'server' })
    await eventually(async () => {
      const rows = await stack.db.selectFrom('log_entries').select('id').where('event_type', '=', 'after_failover').execute()
      return rows.length === 1 ? true : undefined
    }, 20_000, 'the log stored by the worker, which follows the failover too')

    // The test's own fail-fast connection follows the failover too; until it has, a command fails at once.
    const second = await eventually(async () => (await stack.codes.issue('310000000000000002').catch(() => undefined))?.code.code, 30_000, 'the test connection on the new primary')
    const bindAnswers: string[] = []
    const bound = await eventually(async () => {
      const res = await postJson(`${stack.api}/bind`, { code: second, platform_username: 'After_Failover', platform_user_id: 5252 }, auth)
      bindAnswers.push(`${res.status} ${JSON.stringify(res.body)}`)
      return res.status === 200 ? res : undefined
    }, 30_000, 'a bind after the failover').catch((err: Error) => {
      throw new Error(`${err.message}; the answers: ${bindAnswers.join(' | ')}`)
    })
    t.same(bound.body, { status: 'bound', platform_username: 'After_Failover' }, `the answers: ${bindAnswers.join(' | ')}`)
    t.same(await onNode(nodes.replica.port, (r) => r.script('EXISTS', codePut)), [1], 'code-put.lua was loaded on the new primary (NOSCRIPT handled)')
    t.equal((await getText(`${stack.api}/callbacks/${second}`)).text, `{${second};\nAfter_Failover;\nNo activity detected;\n}\n`)
  })
})
