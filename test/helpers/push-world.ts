/**
 * A world for push tests: the sandbox (its fake Open Cloud knowing the universe's key), a stack whose front serves
 * push subscriptions and whose OPEN_CLOUD_API is the sandbox, a push target for the stack's API key, live shard marks,
 * linked codes, and a way to start push publishers on it and read what the fake Open Cloud received.
 */
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js'
import type { PushMetrics } from '../../src/push/publisher.js'
import { startPushConsumer } from '../../src/runtime/consumers.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { buildPushTargets } from '../../src/runtime/services.js'
import { openRedis } from '../../src/runtime/storage.js'
import { createLogger } from '../../src/lib/logger.js'
import { eventually, getText, postJson, setShardMark, startStack, type Stack, type Teardown } from './stack.js'

/** The PUSH_SECRET of push worlds. */
export const PUSH_TEST_SECRET = 'push-test-secret-0123456789abcdefghij'

/** One message the fake Open Cloud accepted. */
export interface FakeMessage {
  seq: number
  universe_id: number
  topic: string
  message: string
  at: string
}

/** What a recording PushMetrics saw. */
export interface PushRecord {
  published: string[]
  coalesced: number
  dropped: Array<[string, number]>
  failed: string[]
  lags: number[]
}

/** A PushMetrics that records every call. */
export function recordingMetrics(): { record: PushRecord; metrics: PushMetrics } {
  const record: PushRecord = { published: [], coalesced: 0, dropped: [], failed: [], lags: [] }
  return {
    record,
    metrics: {
      published: (kind) => void record.published.push(kind),
      coalesced: (n) => void (record.coalesced += n),
      dropped: (reason, n) => void record.dropped.push([reason, n]),
      failed: (reason) => void record.failed.push(reason),
      lag: (s) => void record.lags.push(s),
    },
  }
}

/** A running push world. */
export interface PushWorld {
  stack: Stack
  sandbox: Sandbox
  /** The Open Cloud key of every universe of the world. */
  openCloudKey: string
  /** Attaches `universe` to the stack's key (and tells the fake its key). */
  addUniverse(universe: number): Promise<void>
  /** Detaches `universe` from the stack's key: the publisher finds no Open Cloud key for it at its next reload. */
  removeUniverse(universe: number): Promise<void>
  /** Issues and links `n` codes (one chat user each), returns them. */
  linkedCodes(n: number, prefix?: string): Promise<string[]>
  /** Subscribes `codes` through the front as server `serverId`. */
  subscribe(universe: number, serverId: string, codes: readonly string[]): Promise<void>
  /** Waits until the publisher has recorded a block for each of `codes` (its first look at the universe). */
  waitRecorded(universe: number, codes: readonly string[]): Promise<void>
  /** Starts a publisher in its own process context (its own connections), closed at teardown unless closed before. */
  startPublisher(metrics?: PushMetrics, name?: string): Promise<{ close(): Promise<void>; ctx: ProcessContext }>
  /** What the fake accepted for `universe`. */
  messages(universe: number): Promise<FakeMessage[]>
  /** GET /api/v1/callbacks/CODE as the front answers it. */
  callbacksBlock(code: string): Promise<string>
  /** Sets a code's presence (the gateway's write: Redis and the change feed). */
  play(code: string, game: string): Promise<void>
}

/** Starts a push world for one test; `env` goes to the stack (and so to the publishers). */
export async function startPushWorld(t: Teardown, env: Record<string, string> = {}): Promise<PushWorld> {
  const sandbox = await createSandbox({ port: 0 })
  t.teardown(() => sandbox.close())
  const stack = await startStack(t, { env: { PUSH_SECRET: PUSH_TEST_SECRET, OPEN_CLOUD_API: `${sandbox.url}/open-cloud`, RATE_LIMITS: 'off', ...env }, consumers: [] })
  await setShardMark(stack, 0, Date.now() + 3_600_000)
  const openCloudKey = 'open-cloud-key-of-the-test-universes-0123'
  const control = (path: string, body: unknown) =>
    fetch(`${sandbox.url}/control${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  let chatUser = 800000000000000000n
  const world: PushWorld = {
    stack,
    sandbox,
    openCloudKey,
    async addUniverse(universe) {
      const added = await buildPushTargets(stack.db, PUSH_TEST_SECRET, `${sandbox.url}/open-cloud`).add('test-server', universe, openCloudKey, 'test')
      if (!added.ok) throw new Error(`push add: ${added.reason}`)
      await control('/open-cloud', { keys: { [String(universe)]: openCloudKey } })
    },
    async removeUniverse(universe) {
      const removed = await buildPushTargets(stack.db, PUSH_TEST_SECRET, `${sandbox.url}/open-cloud`).remove('test-server', universe)
      if (!removed.ok) throw new Error(`push remove: ${removed.reason}`)
    },
    async linkedCodes(n, prefix = 'Player') {
      const codes: string[] = []
      for (let i = 0; i < n; i++) {
        const { code } = await stack.codes.issue(String(++chatUser))
        await stack.codes.bind(code.code, { platformUserId: String(chatUser % 1_000_000_000n), platformUsername: `${prefix}${codes.length}` }, { source: 'test' })
        codes.push(code.code)
      }
      return codes
    },
    async subscribe(universe, serverId, codes) {
      const res = await postJson(`${stack.api}/push/subscriptions`, { universe_id: universe, server_id: serverId, codes }, `Bearer ${stack.apiKey}`)
      if (res.status !== 200) throw new Error(`subscribe: ${res.status} ${JSON.stringify(res.body)}`)
    },
    async waitRecorded(universe, codes) {
      await eventually(async () => {
        const recorded = await stack.redis.hmget(stack.ctx.keys.pushSent(universe), ...codes)
        return recorded.every((r) => r !== null) ? true : undefined
      }, 20_000, `the publisher's first look at universe ${universe}`)
    },
    async startPublisher(metrics, name = 'publisher') {
      const ctx = createProcessContext(name, stack.config, createLogger(name, stack.config.logLevel))
      t.teardown(() => ctx.shutdown.run('test done'))
      const redis = await openRedis(ctx, 'request', 'data')
      const publisher = await startPushConsumer(ctx, { db: stack.db, redis, ...(metrics === undefined ? {} : { metrics }) })
      ctx.shutdown.register('push', () => publisher.close())
      return { ctx, close: () => ctx.shutdown.run('closed by the test').then(() => undefined) }
    },
    async messages(universe) {
      const res = await fetch(`${sandbox.url}/control/open-cloud/messages?universe_id=${universe}`)
      return ((await res.json()) as { messages: FakeMessage[] }).messages
    },
    async callbacksBlock(code) {
      return (await getText(`${stack.api}/callbacks/${code}`)).text
    },
    async play(code, game) {
      await stack.presence.set(code, { shard: 0, status: 'online', activity: `Playing,\n${game};\n` })
    },
  }
  return world
}
