import { DiscordAPIError, WebhookClient, type RateLimitData } from 'discord.js'
import t from 'tap'
import { DefaultIds } from '../../../src/sandbox/world.js'
import { call, startSandbox } from '../fixtures/harness.js'
import type { Sandbox } from '../../../src/sandbox/create-sandbox.js'

interface HookInfo {
  id: string
  token: string
  url: string
  channel_id: string
}

async function hookFor(t: { teardown(fn: () => unknown): void }, sandbox: Sandbox): Promise<{ info: HookInfo; client: WebhookClient }> {
  const created = await call<HookInfo>(sandbox, 'POST', '/control/webhooks', { channel_id: DefaultIds.serverLog, name: 'Server log' })
  const client = new WebhookClient({ id: created.body.id, token: created.body.token }, { rest: { api: sandbox.apiBase } })
  t.teardown(() => client.destroy())
  return { info: created.body, client }
}

t.test('webhook execution', async (t) => {
  t.test('a WebhookClient message is recorded with its embeds and allowed mentions', async (t) => {
    const sandbox = await startSandbox(t)
    const { info, client } = await hookFor(t, sandbox)
    t.equal(info.url, `${sandbox.apiBase}/webhooks/${info.id}/${info.token}`)
    t.equal(info.channel_id, DefaultIds.serverLog)
    const sent = await client.send({
      content: 'Server 7f3a started',
      username: 'Game server',
      embeds: [{ title: 'Boot', description: 'Place 1818 is up' }],
      allowedMentions: { parse: [] },
    })
    t.equal(sent.webhook_id, info.id)
    t.equal(sent.author.username, 'Game server')
    const recorded = await call<Array<Record<string, unknown>>>(sandbox, 'GET', `/control/messages?webhook_id=${info.id}`)
    t.equal(recorded.body.length, 1)
    t.match(recorded.body[0], {
      id: sent.id,
      channel_id: DefaultIds.serverLog,
      webhook_id: info.id,
      content: 'Server 7f3a started',
      embeds: [{ title: 'Boot', description: 'Place 1818 is up' }],
      allowed_mentions: { parse: [] },
      flags: 0,
    })
    const requests = await call<{ total: number; byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')
    t.same(requests.body, { total: 1, byRoute: { 'POST /webhooks/:id/:token 200': 1 } })
  })

  t.test('an injected 429 is waited out by discord.js and the message is recorded once', async (t) => {
    const sandbox = await startSandbox(t)
    const { info } = await hookFor(t, sandbox)
    const limits: RateLimitData[] = []
    // discord.js reports an unexpected 429 only through this hook; returning false means "wait and retry".
    const client = new WebhookClient(
      { id: info.id, token: info.token },
      { rest: { api: sandbox.apiBase, offset: 0, rejectOnRateLimit: (data) => (limits.push(data), false) } },
    )
    t.teardown(() => client.destroy())
    const fail = await call(sandbox, 'POST', `/control/webhooks/${info.id}/fail`, { status: 429, count: 1, retry_after: 0.2 })
    t.same(fail.body, { pending: 1 })
    const sent = await client.send({ content: 'after the limit' })
    t.equal(sent.content, 'after the limit')
    t.equal(limits.length, 1)
    t.equal(limits[0]?.retryAfter, 200)
    const recorded = await call<Array<{ id: string }>>(sandbox, 'GET', `/control/messages?webhook_id=${info.id}`)
    t.same(recorded.body.map((m) => m.id), [sent.id])
    const requests = await call<{ total: number; byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')
    t.same(requests.body.byRoute, { 'POST /webhooks/:id/:token 429': 1, 'POST /webhooks/:id/:token 200': 1 })
  })

  t.test('an injected 404 surfaces as DiscordAPIError 10015 Unknown Webhook', async (t) => {
    const sandbox = await startSandbox(t)
    const { info, client } = await hookFor(t, sandbox)
    await call(sandbox, 'POST', `/control/webhooks/${info.id}/fail`, { status: 404 })
    const error = await client.send({ content: 'lost' }).then(
      () => null,
      (e: unknown) => e,
    )
    t.ok(error instanceof DiscordAPIError)
    t.equal((error as DiscordAPIError).code, 10015)
    t.equal((error as DiscordAPIError).status, 404)
    t.equal((error as DiscordAPIError).message, 'Unknown Webhook')
    const next = await client.send({ content: 'back' })
    t.equal(next.content, 'back', 'the failure was used up')
    const cleared = await call(sandbox, 'POST', `/control/webhooks/${info.id}/fail`, { status: null })
    t.same(cleared.body, { pending: 0 })
  })

  t.test('an unknown webhook token is 10015 and execution without wait is a bare 204', async (t) => {
    const sandbox = await startSandbox(t)
    const { info } = await hookFor(t, sandbox)
    const wrong = await call(sandbox, 'POST', `/api/v10/webhooks/${info.id}/not-the-token`, { content: 'x' })
    t.equal(wrong.status, 404)
    t.same(wrong.body, { message: 'Unknown Webhook', code: 10015 })
    const bare = await call(sandbox, 'POST', `/api/v10/webhooks/${info.id}/${info.token}`, { content: 'fire and forget' })
    t.equal(bare.status, 204)
    t.equal(bare.headers.get('content-type'), null)
    t.equal(bare.body, undefined)
  })

  t.test('Discord message limits are enforced with Discord error bodies', async (t) => {
    const sandbox = await startSandbox(t)
    const { info } = await hookFor(t, sandbox)
    const path = `/api/v10/webhooks/${info.id}/${info.token}?wait=true`
    const long = await call(sandbox, 'POST', path, { content: 'x'.repeat(2001) })
    t.equal(long.status, 400)
    t.same(long.body, {
      message: 'Invalid Form Body',
      code: 50035,
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
    })
    const exact = await call<{ content: string }>(sandbox, 'POST', path, { content: '🎮'.repeat(2000) })
    t.equal(exact.status, 200, '2,000 emoji are 2,000 characters')
    const empty = await call(sandbox, 'POST', path, { content: '' })
    t.same(empty.body, { message: 'Cannot send an empty message', code: 50006 })
    const big = await call<{ code: number; errors: Record<string, unknown> }>(sandbox, 'POST', path, {
      embeds: [{ description: 'd'.repeat(4000) }, { description: 'd'.repeat(2001) }],
    })
    t.equal(big.body.code, 50035)
    t.same(big.body.errors, { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED', message: 'Embed size exceeds maximum size of 6000' }] } })
  })
})
