/** The destinations, logs and watchlist CLI commands against real MariaDB and a delivery consumer. */
import t from 'tap'
import { parseSince } from '../../src/cli/delivery-commands.js'
import { destinationsCommand, logsCommand, watchlistCommand } from '../../src/cli/in-process.js'
import { startDeliveryConsumer } from '../../src/runtime/consumers.js'
import { disableDestination, getDestination } from '../../src/mysql/destination-rows.js'
import { startStack, type Stack } from '../helpers/stack.js'

let stack: Stack
const hookUrl = 'https://discord.com/api/webhooks/123456789012345678/SecretWebhookToken'

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

t.test('destinations', async (t) => {
  t.test('set, list and unset; a webhook token is never printed whole', async (t) => {
    t.same(await destinationsCommand(stack.ctx, ['set', 'server', '100000000000000012']), { lines: ['server → channel 100000000000000012'], exitCode: 0 })
    t.same(await destinationsCommand(stack.ctx, ['set', 'ingame', hookUrl]), { lines: ['ingame → webhook https://discord.com/api/webhooks/123456789012345678/Secr…'], exitCode: 0 })
    const list = await destinationsCommand(stack.ctx, ['list'])
    t.equal(list.exitCode, 0)
    t.equal(list.lines.length, 3)
    t.match(list.lines[0], /^server\tchannel 100000000000000012\tactive\tpending 0, sent 0, in digests 0, failed 0, not delivered 0\tset by cli:/)
    t.match(list.lines[1], /^ingame\twebhook https:\/\/discord\.com\/api\/webhooks\/123456789012345678\/Secr…\tactive\t/)
    t.equal(list.lines[2], 'moderation\t(no destination)\t-\tpending 0, sent 0, in digests 0, failed 0, not delivered 0')
    t.notOk(list.lines.join('\n').includes('SecretWebhookToken'))
    t.same(await destinationsCommand(stack.ctx, ['unset', 'ingame']), { lines: ['removed the ingame destination: its new entries are stored and not delivered'], exitCode: 0 })
    t.same(await destinationsCommand(stack.ctx, ['unset', 'ingame']), { lines: ['error: ingame has no destination'], exitCode: 1 })
    t.same(await destinationsCommand(stack.ctx, ['retry', 'ingame']), { lines: ['error: ingame has no destination: set one with destinations set ingame TARGET'], exitCode: 1 })
  })

  t.test('bad usage exits 64 with the reason; no subcommand does not parse: 2', async (t) => {
    t.same(await destinationsCommand(stack.ctx, []), {
      lines: ['error: destinations takes set CATEGORY TARGET, unset CATEGORY, list, or retry CATEGORY', 'run `presence-link destinations --help` for details'],
      exitCode: 2,
    })
    const cases: Array<[string[], string]> = [
      [['set', 'chat', '100000000000000012'], 'error: destinations set needs a CATEGORY: server, ingame or moderation'],
      [['set', 'server'], 'error: destinations set needs a TARGET: a channel id or a webhook URL'],
      [['set', 'server', 'https://evil.example/api/webhooks/123456789012345678/x'], 'error: TARGET must be a webhook URL on discord.com (https), on loopback, or on the DISCORD_API host'],
      [['set', 'server', '#server-log'], 'error: TARGET must be a Discord channel id (17-20 digits) or a webhook URL like https://discord.com/api/webhooks/ID/TOKEN'],
      [['retry'], 'error: destinations retry needs a CATEGORY: server, ingame or moderation'],
    ]
    for (const [args, first] of cases) {
      const out = await destinationsCommand(stack.ctx, args)
      t.equal(out.exitCode, 64, args.join(' '))
      t.equal(out.lines[0], first)
    }
  })

  t.test('LOG_DESTINATION_* seed the table when delivery starts: the environment wins, a disabled same target stays disabled', async (t) => {
    const start = async (server: string) => {
      const runner = await startDeliveryConsumer({
        db: stack.db, redis: stack.redis, keys: stack.ctx.keys, log: stack.ctx.log,
        config: { ...stack.config, logDestinations: { server, ingame: '', moderation: '' } },
      })
      await runner.close()
    }
    await start('100000000000000099')
    const seeded = await getDestination(stack.db, 'server')
    t.match(seeded, { targetText: '100000000000000099', setBy: 'env:LOG_DESTINATION_SERVER', disabledAt: null })
    await disableDestination(stack.db, 'server', '100000000000000099', '403 50013: Missing Permissions')
    await start('100000000000000099')
    t.match(await getDestination(stack.db, 'server'), { targetText: '100000000000000099', disabledReason: '403 50013: Missing Permissions' }, 'a restart does not hammer a refused destination')
    t.not((await getDestination(stack.db, 'server'))?.disabledAt, null)
    await start('100000000000000098')
    t.match(await getDestination(stack.db, 'server'), { targetText: '100000000000000098', disabledAt: null, disabledReason: null }, 'a new target starts enabled')
    await disableDestination(stack.db, 'server', '100000000000000098', '404')
    t.same(await destinationsCommand(stack.ctx, ['set', 'server', '100000000000000098']), { lines: ['server → channel 100000000000000098'], exitCode: 0 })
    t.equal((await getDestination(stack.db, 'server'))?.disabledAt, null, 'an explicit set of the same target re-enables it')
  })
})

t.test('logs replay usage', async (t) => {
  t.equal((await logsCommand(stack.ctx, [])).exitCode, 2, 'no subcommand does not parse')
  t.equal((await logsCommand(stack.ctx, ['replay', '--since', '2024-01-01'])).lines[0], 'error: logs replay needs --category server, ingame or moderation')
  for (const since of ['yesterday', '2024-05-01T10:00', '2024-13-01', '']) {
    t.equal((await logsCommand(stack.ctx, ['replay', '--category', 'server', '--since', since])).lines[0], 'error: logs replay needs --since with an ISO time like 2024-05-01 or 2024-05-01T12:00:00Z', since)
  }
  t.same(await logsCommand(stack.ctx, ['replay', '--category=moderation', '--since=2024-05-01']), { lines: ['error: moderation has no destination: set one with destinations set moderation TARGET first'], exitCode: 1 })
})

t.test('parseSince', async (t) => {
  const cases: Array<[string | undefined, string | null]> = [
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T12:30Z', '2024-05-01T12:30:00.000Z'],
    ['2024-05-01T12:30:15.250+02:00', '2024-05-01T10:30:15.250Z'],
    ['2024-05-01T12:30:15', null],
    ['2024-02-30', null],
    ['1714560000', null],
    [undefined, null],
  ]
  for (const [input, expected] of cases) t.equal(parseSince(input)?.toISOString() ?? null, expected, String(input))
})

t.test('watchlist', async (t) => {
  t.same(await watchlistCommand(stack.ctx, ['list']), { lines: ['the watchlist is empty'], exitCode: 0 })
  t.same(await watchlistCommand(stack.ctx, ['add', '4242', '--reason', 'speed exploit']), { lines: ['added 4242 to the watchlist'], exitCode: 0 })
  t.same(await watchlistCommand(stack.ctx, ['add', '4242', '--reason', 'speed exploit, again']), { lines: ['4242 was already on the watchlist; reason updated'], exitCode: 0 })
  t.same(await watchlistCommand(stack.ctx, ['add', '4242', '--reason', 'speed exploit, again']), { lines: ['4242 was already on the watchlist; reason updated'], exitCode: 0 })
  t.same(await watchlistCommand(stack.ctx, ['add', '77']), { lines: ['added 77 to the watchlist'], exitCode: 0 })
  const list = await watchlistCommand(stack.ctx, ['list'])
  t.equal(list.lines.length, 2)
  t.ok(list.lines.some((l) => /^4242\tspeed exploit, again\tadded by cli:\S+ at \d{4}-/.test(l)))
  t.ok(list.lines.some((l) => l.startsWith('77\t-\t')))
  t.same(await watchlistCommand(stack.ctx, ['remove', '77']), { lines: ['removed 77 from the watchlist'], exitCode: 0 })
  t.same(await watchlistCommand(stack.ctx, ['remove', '77']), { lines: ['error: 77 is not on the watchlist'], exitCode: 1 })
  for (const args of [['add'], ['add', 'abc'], ['add', '0'], ['add', '12345678901234567'], ['add', '5', '--reason', ' ']]) {
    t.equal((await watchlistCommand(stack.ctx, args)).exitCode, 64, args.join(' '))
  }
  t.equal((await watchlistCommand(stack.ctx, ['drop', '5'])).exitCode, 2, 'an unknown subcommand does not parse')
})
