/**
 * The Roblox module's `watch` in a live server (RunService:IsStudio() false) receiving changes pushed through Open
 * Cloud messaging: the module under Luau with the engine stand-ins of test/clients/roblox/harness.lua (its
 * MessagingService reads what the sandbox's fake Open Cloud received), against the real service: front, worker with
 * the push publisher, and the real gateway on the Discord sandbox. The fake Open Cloud runs in a second sandbox
 * instance, because OPEN_CLOUD_API must name it before the service starts. Polling is made impossible after the first
 * reconcile (the stand-in HttpService refuses callbacks and rpc), so every later block came through the push.
 *
 * PUSH_LATENCY_CHANGES=60 adds a measurement (not an assertion): from a presence change to the module's onBlock,
 * p50 and p99, push beside the SSE stream of Studio measured on the same changes.
 */
import t, { type Test } from 'tap'
import { createSandbox } from '../../../src/sandbox/create-sandbox.js'
import { buildPushTargets } from '../../../src/runtime/services.js'
import { startGatewayStack, type GatewayStack } from '../../helpers/gateway-stack.js'
import { runLuauScenario } from '../../helpers/luau-scenario.js'
import { eventually, postJson } from '../../helpers/stack.js'

const SECRET = 'p'.repeat(40)
const UNIVERSE = 7_700_001
const NO_TARGET_UNIVERSE = 7_700_002
const OPEN_CLOUD_KEY = 'open-cloud-key-for-the-lua-test-0123456789'

/** The stack, its Open Cloud fake, two linked players, and the scenarios' environment. */
async function setUp(t: Test) {
  const openCloud = await createSandbox({ port: 0 })
  t.teardown(() => openCloud.close())
  const ocControl = async (path: string, body: unknown) => {
    const res = await fetch(`${openCloud.url}/control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (!res.ok) throw new Error(`open cloud control ${path}: ${res.status} ${await res.text()}`)
  }
  await ocControl('open-cloud', { keys: { [UNIVERSE]: OPEN_CLOUD_KEY } })
  const openCloudApi = `${openCloud.url}/open-cloud`
  const g: GatewayStack = await startGatewayStack(t, { env: { PUSH_SECRET: SECRET, OPEN_CLOUD_API: openCloudApi } })
  const added = await buildPushTargets(g.stack.db, SECRET, openCloudApi).add('test-server', UNIVERSE, OPEN_CLOUD_KEY, 'test')
  if (!added.ok) throw new Error(`could not add the push target: ${added.reason}`)
  const aliceId = '870000000000000031'
  const bobId = '870000000000000032'
  const { code } = await g.linkedUser(aliceId, 'alice', 'Alice_R', 5151)
  const { code: second } = await g.linkedUser(bobId, 'bob', 'Bob_R', 5252)
  const messages = async (): Promise<Array<{ seq: number; message: string }>> =>
    ((await (await fetch(`${openCloud.url}/control/open-cloud/messages?universe_id=${UNIVERSE}`)).json()) as { messages: Array<{ seq: number; message: string }> }).messages
  // The publisher loads the targets' keys at start and every few seconds: wait until it publishes for this universe.
  const ready = await postJson(`${g.stack.api}/push/subscriptions`, { universe_id: UNIVERSE, server_id: 'readiness', codes: [code] }, `Bearer ${g.stack.apiKey}`)
  if (ready.status !== 200) throw new Error(`subscription refused: ${ready.status} ${JSON.stringify(ready.body)}`)
  let n = 0
  await eventually(
    async () => {
      await g.control('POST', 'presence', { user_id: aliceId, status: 'online', activities: [{ type: 0, name: `Warm Up ${n++}` }] })
      await new Promise((resolve) => setTimeout(resolve, 300))
      return (await messages()).length > 0 ? true : undefined
    },
    30_000,
    'the publisher publishing to the fake Open Cloud',
  )
  await postJson(`${g.stack.api}/push/subscriptions`, { universe_id: UNIVERSE, server_id: 'readiness', codes: [] }, `Bearer ${g.stack.apiKey}`)
  const env = {
    BASE_URL: g.stack.api,
    API_KEY: g.stack.apiKey,
    CONTROL_URL: `${g.sandbox.url}/control`,
    OPEN_CLOUD_CONTROL_URL: `${openCloud.url}/control`,
    OPEN_CLOUD_URL: openCloudApi,
    OPEN_CLOUD_KEY,
    UNIVERSE_ID: String(UNIVERSE),
    CODE: code,
    SECOND_CODE: second,
    USER_ID_DISCORD: aliceId,
    SECOND_USER_ID_DISCORD: bobId,
    PLAYERS: 'Alice_R:5151,Bob_R:5252',
  }
  return { g, code, second, env, messages }
}

/** The q-quantile of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

t.test('watch in a live server over the real push pipeline', async (t) => {
  const { g, code, second, env, messages } = await setUp(t)
  const api = g.stack.api

  t.test('a push reaches watch with polling made impossible; join, leave and stop declare the codes', async (t) => {
    const out = await runLuauScenario('push.lua', env)
    t.match(out.first, { code, marker: ';', username: 'Alice_R' })
    t.match(out.firstSecond, { code: second, username: 'Bob_R' })
    t.equal(out.modeAfterFirst, 'push')
    t.same(out.changed.activities, [{ lines: ['Playing', 'Hollow Knight'] }], 'the presence change arrived, pushed')
    t.equal(out.reads, 1, 'callbacks were read once: the first reconcile')
    t.equal(out.refused, 0, 'nothing tried to poll after it')
    t.equal(out.streams, 0, 'no stream in a live server')
    t.same(out.crafted.map((b: { activities: Array<{ lines: string[] }> }) => b.activities[0]!.lines), [['Playing', '####### Quest']], 'the crafted hostile title arrived filtered; the other server\'s code and the unknown version did not arrive')
    t.same(out.published, [200, 200, 200, 200])
    t.ok(out.errors.some((e: { kind: string; detail: string }) => e.kind === 'push' && /does not follow the block grammar/.test(e.detail)), 'the broken block was reported')
    t.same(out.afterLeave, [code], 'after the leave, only the remaining code is delivered')
    t.equal(out.mode, 'push')
    t.same(out.topics, ['presence-link'])
    const universe = Number(env.UNIVERSE_ID)
    const server = { universe_id: universe, server_id: 'luau-harness-server' }
    t.same(
      out.declarations.map(likeArray),
      [
        { ...server, codes: [code, second] },
        { ...server, codes: [code] },
        { ...server, codes: [] },
      ],
      'declared on the first round, again when a player left, ended when stopped',
    )
    t.same(out.errors.filter((e: { kind: string }) => e.kind !== 'push'), [], 'no other error')
  })

  t.test('a change whose block does not fit in a message is named, and watch reads it', async (t) => {
    const before = (await messages()).length
    const out = await runLuauScenario('push-read.lua', { ...env, ACTIVITIES: '5' })
    const published = (await messages()).slice(before).map((m) => JSON.parse(m.message) as { v: number; codes?: string[]; blocks?: Record<string, string> })
    t.ok(published.some((m) => m.v === 1 && m.codes?.includes(code)), 'the publisher sent the code without its block')
    t.equal(out.mode, 'push')
    t.equal(out.readsBefore, 1)
    t.same(out.reads.slice(out.readsBefore), [`${api}/callbacks/${code}`], 'one read of the named code')
    t.ok(out.last.activities.length > 1, 'the big block arrived')
  })

  t.test('the declaration is renewed with every reconcile poll', async (t) => {
    const out = await runLuauScenario('push-renew.lua', { ...env, ROUNDS: '3' })
    t.equal(out.mode, 'push')
    t.ok(out.declarations.length >= 3, `declared on each of the ${out.declarations.length} rounds`)
    t.same(out.declarations.slice(0, -1).filter((codes: string[]) => codes.join() !== code), [], 'each renewal names the code')
    t.ok(gaps(out.declaredAt).every((gap) => gap >= 0.9), `a round each reconcileInterval (1 s), not at once: ${gaps(out.declaredAt).map((g) => g.toFixed(2))}`)
    t.ok(out.reads >= 3, `a reconcile poll with each (${out.reads})`)
    t.equal(out.delivered, 1, 'an unchanged block is delivered once')
    t.same(out.errors, [])
  })

  t.test('MessagingService refuses the subscription: nothing is declared, watch polls and says why', async (t) => {
    const out = await runLuauScenario('push-renew.lua', { ...env, ROUNDS: '2', SUBSCRIBE_FAILS: '1' })
    t.equal(out.mode, 'poll')
    t.same(likeList(out.declarations), [], 'no declaration without the subscription')
    t.ok(out.reads >= 2 && gaps(out.readAt).every((gap) => gap >= 0.9), `polled every pollInterval (1 s): ${gaps(out.readAt).map((g) => g.toFixed(2))}`)
    t.equal(out.errors.length, 1, 'said once (the next try is streamRetrySeconds later)')
    t.match(out.errors[0], { kind: 'push', detail: /MessagingService:SubscribeAsync failed/ })
  })

  t.test('a universe without a push target: watch says why and polls, never streams', async (t) => {
    const out = await runLuauScenario('live.lua', { ...env, UNIVERSE_ID: String(NO_TARGET_UNIVERSE), STREAM: 'sse', PLAYERS: 'Alice_R:5151' })
    t.same(out.streams, [])
    t.equal(out.mode, 'poll')
    t.equal(out.errors.length, 1, 'said once')
    t.match(out.errors[0], { kind: 'push', httpStatus: 404, errorCode: 'push_target_not_found' })
    t.same(out.pushes, [`${api}/push/subscriptions`], 'asked once, not again within ten minutes')
    t.same(out.last.activities, [{ lines: ['Playing', 'Stardew Valley'] }], 'the change arrived by polling')
  })

  const changes = Number(process.env.PUSH_LATENCY_CHANGES ?? '0')
  if (changes > 0) {
    t.test(`latency over ${changes} changes (a measurement, not an assertion)`, async (t) => {
      const out = await runLuauScenario('latency.lua', { ...env, CHANGES: String(changes) }, 60_000 + changes * 15_000)
      const ms = (s: number) => Math.round(s * 1000)
      const push = { p50: ms(quantile(out.push, 0.5)), p99: ms(quantile(out.push, 0.99)) }
      const stream = { p50: ms(quantile(out.stream, 0.5)), p99: ms(quantile(out.stream, 0.99)) }
      t.comment(`push (live server): p50 ${push.p50} ms, p99 ${push.p99} ms over ${out.push.length} changes (${out.lost} lost)`)
      t.comment(`SSE stream (Studio), same changes: p50 ${stream.p50} ms, p99 ${stream.p99} ms`)
      t.comment(`ratio push/stream: p50 ${(push.p50 / stream.p50).toFixed(1)}, p99 ${(push.p99 / stream.p99).toFixed(1)}`)
      t.pass('measured')
    })
  }
})

/** The harness writes an empty Luau table as {}: read `codes` as a list. */
function likeArray(declaration: { codes: unknown }): unknown {
  const codes = declaration.codes
  return { ...declaration, codes: likeList(codes) }
}

/** A list the harness wrote, {} when empty. */
function likeList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The seconds between consecutive times. */
function gaps(times: number[]): number[] {
  return likeList(times).slice(1).map((at, i) => (at as number) - times[i]!)
}
