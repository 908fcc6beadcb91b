/** Recognising a Discord the network cannot reach (DNS, refused, reset, timeouts) and the one line it gets. */
import t from 'tap'
import { networkCause, unreachableLine } from '../../../src/gateway/model/discord-unreachable.js'

function sysError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}

t.test('network failures are recognised, however deeply fetch wraps them', async (t) => {
  const cases: Array<[string, unknown, string | null]> = [
    ['DNS, as fetch reports it', new TypeError('fetch failed', { cause: sysError('ENOTFOUND', 'getaddrinfo ENOTFOUND discord.invalid') }), 'getaddrinfo ENOTFOUND discord.invalid'],
    ['refused, bare', sysError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), 'connect ECONNREFUSED 127.0.0.1:9'],
    ['DNS try again, two deep', new Error('outer', { cause: new TypeError('fetch failed', { cause: sysError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN discord.com') }) }), 'getaddrinfo EAI_AGAIN discord.com'],
    ['undici connect timeout, message without the code', new TypeError('fetch failed', { cause: sysError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error') }), 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error'],
    ['a 401 is not a network failure', Object.assign(new Error('401: Unauthorized'), { status: 401 }), null],
    ['a bug is not one either', new TypeError('Cannot read properties of undefined'), null],
    ['not an error at all', 'ECONNREFUSED', null],
    ['null', null, null],
    ['an unknown code', sysError('EWHATEVER', 'odd'), null],
  ]
  for (const [name, err, cause] of cases) t.equal(networkCause(err), cause, name)
})

t.test('the line names the variable, its value, the cause and the next pause', async (t) => {
  t.equal(
    unreachableLine('http://discord.invalid/api', 'getaddrinfo ENOTFOUND discord.invalid', 1000),
    "Discord is unreachable at DISCORD_API=http://discord.invalid/api (network: getaddrinfo ENOTFOUND discord.invalid); check DISCORD_API and this machine's DNS and outbound network. Retrying, next in 1 s, then ever more slowly (at most every 30 s)",
  )
  t.match(unreachableLine('x', 'y', 500), /next in 0\.5 s/)
})
