/**
 * The gateway entry (src/gateway.ts) as a real process when Discord cannot be reached over the network: a host DNS
 * cannot find, and a closed port that later opens (the sandbox starts there). It waits with one error line naming
 * DISCORD_API and the cause, no stack and no exit, and logs in once Discord answers.
 */
import t from 'tap'
import { createSandbox } from '../src/sandbox/create-sandbox.js'
import { startGatewayPart, type Part } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { startStack, type Stack, type Teardown } from './helpers/stack.js'

// Each case starts a gateway process with tap's TypeScript loader: slow on a loaded 2-core machine.
t.setTimeout(300_000)

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { front: false, consumers: [] })
})

function gatewayAgainst(t: Teardown, api: string): Part {
  return startGatewayPart(t, stack.config, api)
}

const unreachable = (e: Record<string, unknown>) => e.variable === 'DISCORD_API' && typeof e.msg === 'string' && e.msg.startsWith('Discord is unreachable')
const stackLines = (part: Part) => part.lines().filter((l) => l.includes('    at ') || l.includes('"stack"'))
const severe = (part: Part) => part.entries().filter((e) => typeof e.level === 'number' && e.level >= 50)

t.test('a host DNS cannot find: one error line naming DISCORD_API and ENOTFOUND, no stack, still running', async (t) => {
  const gateway = gatewayAgainst(t, 'http://discord.invalid/api')
  const line = await gateway.waitFor(unreachable, 150_000, 'the unreachable line')
  t.match(line, { level: 50, api: 'http://discord.invalid/api', cause: /ENOTFOUND discord\.invalid/ })
  t.match(String(line.msg), /DISCORD_API=http:\/\/discord\.invalid\/api \(network: getaddrinfo ENOTFOUND discord\.invalid\)/)
  // Its metrics port answers while it waits: the process is alive and did not crash.
  const listening = await gateway.waitFor((e) => e.msg === 'metrics listening', 10_000)
  const ready = await fetch(`http://127.0.0.1:${Number(listening.port)}/readyz`)
  t.equal(ready.status, 503, '/readyz: not ready while Discord is unreachable')
  t.equal(gateway.child.exitCode, null, 'not exited')
  t.same(severe(gateway).map((e) => e.msg), [line.msg], 'the only error-or-worse line')
  t.same(stackLines(gateway), [], 'no stack trace')
  t.equal(await gateway.stop('SIGINT'), 0, 'Ctrl-C ends the wait cleanly')
})

t.test('a closed port: waits with one line, then logs in once the sandbox opens there', async (t) => {
  const port = await freePort()
  const api = `http://127.0.0.1:${port}/api`
  const gateway = gatewayAgainst(t, api)
  const line = await gateway.waitFor(unreachable, 150_000, 'the unreachable line')
  t.match(line, { level: 50, cause: new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`) })
  const sandbox = await createSandbox({ port, log: () => undefined })
  t.teardown(() => sandbox.close())
  t.equal(sandbox.apiBase, api)
  await gateway.waitFor((e) => e.msg === 'gateway ready', 120_000, 'gateway ready')
  t.ok(gateway.entries().some((e) => e.msg === 'Discord is reachable again; logging in'), 'says it is reachable again')
  t.equal(gateway.entries().filter(unreachable).length, 1, 'one unreachable line for the whole wait, not one per retry')
  t.same(severe(gateway).map((e) => e.msg), [line.msg], 'no other error-or-worse line')
  t.same(stackLines(gateway), [], 'no stack trace')
})
