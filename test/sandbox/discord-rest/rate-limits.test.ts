/** Discord's rate limits as the sandbox enforces them: the message bucket per channel, webhooks, the global limit, the control API. */
import { setTimeout as sleep } from 'node:timers/promises'
import { REST, Routes } from 'discord.js'
import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, startSandbox, type CallResult } from '../fixtures/harness.js'

const AUTH = { authorization: 'Bot sandbox-token' }
const MESSAGE = { embeds: [{ title: 'entry' }] }

type Limited = { message: string; retry_after: number; global: boolean }

const post = (sandbox: Parameters<typeof call>[0], channel: string) => call<Limited>(sandbox, 'POST', `/api/v10/channels/${channel}/messages`, MESSAGE, AUTH)

const header = (res: CallResult<unknown>, name: string) => res.headers.get(name)

t.test("a channel's message bucket: 5 per 5 s by default, with Discord's headers and 429", async (t) => {
  const sandbox = await startSandbox(t)
  const answers: Array<CallResult<Limited>> = []
  for (let i = 0; i < 6; i++) answers.push(await post(sandbox, DefaultIds.serverLog))
  t.same(answers.map((a) => a.status), [200, 200, 200, 200, 200, 429])
  t.same(answers.map((a) => header(a, 'x-ratelimit-limit')), ['5', '5', '5', '5', '5', '5'], 'X-RateLimit-Limit on every answer, the 429 too')
  t.same(answers.map((a) => header(a, 'x-ratelimit-remaining')), ['4', '3', '2', '1', '0', '0'])
  const buckets = new Set(answers.map((a) => header(a, 'x-ratelimit-bucket')))
  t.equal(buckets.size, 1, 'one bucket hash')
  t.match([...buckets][0], /^[0-9a-f]{32}$/)
  for (const a of answers) {
    const resetAfter = Number(header(a, 'x-ratelimit-reset-after'))
    t.ok(resetAfter > 0 && resetAfter <= 5, `X-RateLimit-Reset-After ${resetAfter} within the 5 s window`)
    t.match(header(a, 'x-ratelimit-reset-after'), /^\d+\.\d{3}$/)
    const reset = Number(header(a, 'x-ratelimit-reset'))
    t.ok(Math.abs(reset - (Date.now() / 1000 + resetAfter)) < 2, 'X-RateLimit-Reset is the epoch second of the reset')
  }
  const limited = answers[5]!
  t.equal(limited.body.message, 'You are being rate limited.')
  t.equal(limited.body.global, false)
  t.ok(limited.body.retry_after > 0 && limited.body.retry_after <= 5, `retry_after ${limited.body.retry_after} s`)
  t.same(Object.keys(limited.body).sort(), ['global', 'message', 'retry_after'], "Discord's 429 body")
  t.equal(header(limited, 'retry-after'), String(limited.body.retry_after))
  t.equal(header(limited, 'x-ratelimit-scope'), 'user')
  t.equal(header(limited, 'x-ratelimit-global'), null)
  t.equal(Number(header(limited, 'x-ratelimit-reset-after')), limited.body.retry_after)

  const other = await post(sandbox, DefaultIds.ingameLog)
  t.equal(other.status, 200, 'another channel has a bucket of its own')
  t.equal(header(other, 'x-ratelimit-remaining'), '4')
  t.equal(header(other, 'x-ratelimit-bucket'), [...buckets][0], 'under the same bucket hash (the channel is the top-level resource)')
  const read = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.serverLog}`, undefined, AUTH)
  t.equal(read.status, 200, 'other routes of the channel are not in the message bucket')
  t.equal(header(read, 'x-ratelimit-limit'), '50')
  const stored = await call<unknown[]>(sandbox, 'GET', `/control/messages?channel_id=${DefaultIds.serverLog}`)
  t.equal(stored.body.length, 5, 'the refused message was not posted')
  t.same((await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')).body.byRoute, {
    'POST /channels/:id/messages 200': 6,
    'POST /channels/:id/messages 429': 1,
    'GET /channels/:id 200': 1,
  })
})

t.test('the bucket resets after retry_after, and a 429 meanwhile does not extend it', async (t) => {
  const sandbox = await startSandbox(t, { rateLimits: { messageCreate: { limit: 2, windowMs: 400 } } })
  t.equal((await post(sandbox, DefaultIds.general)).status, 200)
  t.equal((await post(sandbox, DefaultIds.general)).status, 200)
  const limited = await post(sandbox, DefaultIds.general)
  t.equal(limited.status, 429)
  t.ok(limited.body.retry_after <= 0.4)
  const again = await post(sandbox, DefaultIds.general)
  t.equal(again.status, 429, 'still refused before the reset')
  t.ok(again.body.retry_after <= limited.body.retry_after, 'the refusal did not push the reset back')
  // The reset is a time Discord names, not an event: waiting retry_after is what a client does.
  await sleep(again.body.retry_after * 1000 + 10)
  const after = await post(sandbox, DefaultIds.general)
  t.equal(after.status, 200, 'a fresh window')
  t.equal(header(after, 'x-ratelimit-remaining'), '1')
})

t.test('a webhook takes 5 executions per 2 s', async (t) => {
  const sandbox = await startSandbox(t)
  const hook = (await call<{ id: string; token: string }>(sandbox, 'POST', '/control/webhooks', { channel_id: DefaultIds.serverLog })).body
  const statuses: number[] = []
  let last: CallResult<Limited> | undefined
  for (let i = 0; i < 6; i++) {
    last = await call<Limited>(sandbox, 'POST', `/api/v10/webhooks/${hook.id}/${hook.token}?wait=true`, MESSAGE)
    statuses.push(last.status)
  }
  t.same(statuses, [200, 200, 200, 200, 200, 429])
  t.equal(header(last!, 'x-ratelimit-limit'), '5')
  t.ok(last!.body.retry_after > 0 && last!.body.retry_after <= 2)
  t.equal(header(last!, 'x-ratelimit-scope'), 'user')
})

t.test("the global limit counts a bot token's calls, not interaction callbacks or webhooks", async (t) => {
  const sandbox = await startSandbox(t, { rateLimits: { global: { limit: 3, windowMs: 60_000 } } })
  const hook = (await call<{ id: string; token: string }>(sandbox, 'POST', '/control/webhooks', { channel_id: DefaultIds.serverLog })).body
  for (let i = 0; i < 4; i++) t.equal((await call(sandbox, 'POST', `/api/v10/webhooks/${hook.id}/${hook.token}`, MESSAGE)).status, 204, 'a webhook without a token')
  const statuses: number[] = []
  for (const channel of [DefaultIds.general, DefaultIds.serverLog, DefaultIds.ingameLog, DefaultIds.moderationLog]) {
    statuses.push((await call(sandbox, 'GET', `/api/v10/channels/${channel}`, undefined, AUTH)).status)
  }
  t.same(statuses, [200, 200, 200, 429], 'the fourth call of the token, on a fresh route bucket, meets the global limit')
  const limited = await call<Limited>(sandbox, 'GET', `/api/v10/channels/${DefaultIds.general}`, undefined, AUTH)
  t.equal(limited.status, 429)
  t.same(limited.body, { message: 'You are being rate limited.', retry_after: limited.body.retry_after, global: true })
  t.equal(header(limited, 'x-ratelimit-global'), 'true')
  t.equal(header(limited, 'x-ratelimit-scope'), 'global')
  t.equal(header(limited, 'retry-after'), String(limited.body.retry_after))
  t.equal(header(limited, 'x-ratelimit-bucket'), null, 'a global refusal names no route bucket')
  const other = await call(sandbox, 'GET', `/api/v10/channels/${DefaultIds.general}`, undefined, { authorization: 'Bot another-token' })
  t.equal(other.status, 200, 'another bot token has a limit of its own')
})

t.test('the control API reads and changes the rules; reset keeps them', async (t) => {
  const sandbox = await startSandbox(t)
  const discord = {
    route: { limit: 50, window_ms: 1000 },
    message_create: { limit: 5, window_ms: 5000 },
    webhook_execute: { limit: 5, window_ms: 2000 },
    global: { limit: 50, window_ms: 1000 },
  }
  t.same((await call(sandbox, 'GET', '/control/rate-limits')).body, discord, "Discord's limits by default")
  const bad: Array<[unknown, string]> = [
    [{ message_create: { limit: -1, window_ms: 1000 } }, 'message_create.limit must be a whole number 0-100000 (0: never limited)'],
    [{ message_create: { limit: 1 } }, 'message_create.window_ms must be a whole number of milliseconds 1-3600000'],
    [{ global: 'off' }, 'global must be {limit, window_ms} or null'],
    [{ preset: 'none' }, "preset must be 'discord' or 'unlimited'"],
  ]
  for (const [body, error] of bad) {
    const res = await call(sandbox, 'POST', '/control/rate-limits', body)
    t.equal(res.status, 400)
    t.same(res.body, { error })
  }
  const changed = await call(sandbox, 'POST', '/control/rate-limits', { message_create: { limit: 1, window_ms: 60_000 } })
  t.same(changed.body, { ...discord, message_create: { limit: 1, window_ms: 60_000 } })
  t.equal((await post(sandbox, DefaultIds.general)).status, 200)
  t.equal((await post(sandbox, DefaultIds.general)).status, 429)
  await call(sandbox, 'POST', '/control/reset')
  t.same((await call<typeof discord>(sandbox, 'GET', '/control/rate-limits')).body.message_create, { limit: 1, window_ms: 60_000 }, 'reset keeps the rules')
  t.equal((await post(sandbox, DefaultIds.general)).status, 200, 'and empties the buckets')
  t.equal((await post(sandbox, DefaultIds.general)).status, 429)

  const unlimited = await call<Record<string, { limit: number }>>(sandbox, 'POST', '/control/rate-limits', { preset: 'unlimited' })
  t.same(Object.values(unlimited.body).map((r) => r.limit), [0, 0, 0, 0])
  for (let i = 0; i < 8; i++) {
    const res = await post(sandbox, DefaultIds.general)
    if (res.status !== 200) t.fail(`unlimited: message ${i} answered ${res.status}`)
    if (i === 7) t.same([header(res, 'x-ratelimit-limit'), header(res, 'x-ratelimit-remaining')], ['5', '5'], "headers still announce Discord's figure")
  }
  t.same((await call<typeof discord>(sandbox, 'POST', '/control/rate-limits', { preset: 'unlimited', message_create: null })).body.message_create, discord.message_create, "null is Discord's rule")
})

t.test('the real @discordjs/rest client queues per bucket: every message posted, not one 429', async (t) => {
  const sandbox = await startSandbox(t, { rateLimits: { messageCreate: { limit: 3, windowMs: 300 } } })
  const rest = new REST({ api: sandbox.apiBase, version: '10' }).setToken('sandbox-token')
  const limited: unknown[] = []
  rest.on('rateLimited', (info) => limited.push(info))
  const sent = await Promise.all(Array.from({ length: 12 }, (_, i) => rest.post(Routes.channelMessages(DefaultIds.serverLog), { body: { content: `message ${i}` } })))
  t.equal(sent.length, 12)
  const stored = await call<Array<{ content: string }>>(sandbox, 'GET', `/control/messages?channel_id=${DefaultIds.serverLog}`)
  t.same(stored.body.map((m) => m.content), Array.from({ length: 12 }, (_, i) => `message ${i}`), 'all of them, in order')
  t.same((await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')).body.byRoute, { 'POST /channels/:id/messages 200': 12 }, 'the sandbox saw no 429')
  t.ok(limited.length >= 3, `the client waited for the bucket ${limited.length} times`)
})
