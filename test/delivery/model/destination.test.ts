/** Reading, storing and printing delivery destination targets (src/delivery/model/destination.ts). */
import t from 'tap'
import { describeTarget, parseDestinationTarget, targetText } from '../../../src/delivery/model/destination.js'

t.test('parseDestinationTarget', async (t) => {
  const accepted: Array<[string, string, string, object]> = [
    ['a channel id', '100000000000000012', '', { kind: 'channel', channelId: '100000000000000012' }],
    ['a channel id with spaces around', '  123456789012345678 ', '', { kind: 'channel', channelId: '123456789012345678' }],
    ['a discord.com webhook', 'https://discord.com/api/webhooks/123456789012345678/tok-EN_x', '', { kind: 'webhook', webhookId: '123456789012345678', token: 'tok-EN_x', apiBase: 'https://discord.com/api' }],
    ['a versioned discordapp.com webhook', 'https://discordapp.com/api/v10/webhooks/123456789012345678/abc/', '', { kind: 'webhook', webhookId: '123456789012345678', token: 'abc', apiBase: 'https://discordapp.com/api' }],
    ['a canary webhook', 'https://canary.discord.com/api/webhooks/123456789012345678/abc', '', { kind: 'webhook', apiBase: 'https://canary.discord.com/api' }],
    ['the sandbox webhook shape on loopback', 'http://127.0.0.1:8090/api/webhooks/1573919038910758912/xyz', '', { kind: 'webhook', webhookId: '1573919038910758912', token: 'xyz', apiBase: 'http://127.0.0.1:8090/api' }],
    ['a webhook on the DISCORD_API host', 'http://sandbox:8090/api/webhooks/123456789012345678/abc', 'http://sandbox:8090/api', { kind: 'webhook', apiBase: 'http://sandbox:8090/api' }],
    ['a webhook behind a path prefix on the DISCORD_API host', 'https://proxy.example/discord/api/webhooks/123456789012345678/abc', 'https://proxy.example/discord/api', { kind: 'webhook', apiBase: 'https://proxy.example/discord/api' }],
  ]
  for (const [name, value, api, expected] of accepted) {
    t.test(`accepts ${name}`, async (t) => {
      const r = parseDestinationTarget(value, api)
      t.ok(r.ok)
      if (r.ok) t.match(r.target, expected)
    })
  }
  const refused: Array<[string, string, string, RegExp]> = [
    ['an empty value', '', '', /must be a Discord channel id/],
    ['a short number', '12345', '', /must be a Discord channel id/],
    ['a channel mention', '<#123456789012345678>', '', /must be a Discord channel id/],
    ['plain http to discord.com', 'http://discord.com/api/webhooks/123456789012345678/abc', '', /on discord\.com \(https\)/],
    ['another host', 'https://evil.example/api/webhooks/123456789012345678/abc', '', /on discord\.com \(https\)/],
    ['a look-alike host', 'https://discord.com.evil.example/api/webhooks/123456789012345678/abc', '', /on discord\.com/],
    ['a webhook URL with a query', 'https://discord.com/api/webhooks/123456789012345678/abc?wait=true', '', /without a query/],
    ['a webhook URL with credentials', 'https://u:p@discord.com/api/webhooks/123456789012345678/abc', '', /credentials/],
    ['a non-webhook Discord URL', 'https://discord.com/channels/1/2', '', /must be a Discord channel id/],
    ['a webhook id that is not a snowflake', 'https://discord.com/api/webhooks/abc/def', '', /must be/],
  ]
  for (const [name, value, api, message] of refused) {
    t.test(`refuses ${name}`, async (t) => {
      const r = parseDestinationTarget(value, api)
      t.notOk(r.ok)
      if (!r.ok) t.match(r.message, message)
    })
  }
})

t.test('stored text round-trips and printing hides the webhook token', async (t) => {
  const r = parseDestinationTarget('https://discord.com/api/v10/webhooks/123456789012345678/secretTOKEN')
  t.ok(r.ok)
  if (!r.ok) return
  t.equal(targetText(r.target), 'https://discord.com/api/webhooks/123456789012345678/secretTOKEN')
  t.same(parseDestinationTarget(targetText(r.target)), r)
  t.equal(describeTarget(r.target), 'webhook https://discord.com/api/webhooks/123456789012345678/secr…')
  t.notOk(describeTarget(r.target).includes('secretTOKEN'))
  const c = parseDestinationTarget('100000000000000012')
  t.ok(c.ok && describeTarget(c.target) === 'channel 100000000000000012')
})
