/**
 * The control API cannot be driven by a web page: a page may send a form or text/plain POST to 127.0.0.1 without
 * a CORS preflight, so every non-GET control request must say application/json. And the sandbox listens on loopback.
 */
import { networkInterfaces } from 'node:os'
import t from 'tap'
import { createSandbox } from '../../../src/sandbox/create-sandbox.js'
import { call, startSandbox } from '../fixtures/harness.js'

const memberCount = async (url: string): Promise<number> => {
  const state = (await (await fetch(`${url}/control/state`)).json()) as { defaultGuildId: string; guilds: Array<{ id: string; memberCount: number }> }
  return state.guilds.find((g) => g.id === state.defaultGuildId)!.memberCount
}

t.test('a cross-origin-style post is refused and changes nothing', async (t) => {
  const sandbox = await startSandbox(t)
  const before = await memberCount(sandbox.url)
  const member = JSON.stringify({ id: '830000000000000001', username: 'planted' })
  const attempts: Array<[string, Record<string, string>, string | undefined]> = [
    ['text/plain carrying JSON (what fetch no-cors sends)', { 'content-type': 'text/plain;charset=UTF-8' }, member],
    ['a form post', { 'content-type': 'application/x-www-form-urlencoded' }, `${encodeURIComponent(member)}=`],
    ['a multipart form', { 'content-type': 'multipart/form-data; boundary=x' }, `--x\r\nContent-Disposition: form-data; name="payload_json"\r\n\r\n${member}\r\n--x--\r\n`],
    ['no content type', {}, undefined],
  ]
  for (const [what, headers, body] of attempts) {
    const res = await fetch(`${sandbox.url}/control/members`, { method: 'POST', headers: { origin: 'https://evil.example', ...headers }, ...(body === undefined ? {} : { body }) })
    t.equal(res.status, 415, what)
    t.same(await res.json(), { error: 'the control API takes only Content-Type: application/json on anything but GET' }, what)
    t.notOk(res.headers.get('access-control-allow-origin'), `${what}: no CORS approval`)
  }
  const reset = await fetch(`${sandbox.url}/control/reset`, { method: 'POST', headers: { 'content-type': 'text/plain' } })
  t.equal(reset.status, 415, 'a bodyless text/plain reset is refused too')
  t.equal(await memberCount(sandbox.url), before, 'no member was planted')

  const json = await call(sandbox, 'POST', '/control/members', JSON.parse(member))
  t.equal(json.status, 200, 'application/json works')
  t.equal(await memberCount(sandbox.url), before + 1)
  const charset = await fetch(`${sandbox.url}/control/reset`, { method: 'POST', headers: { 'content-type': 'Application/JSON; charset=utf-8' } })
  t.equal(charset.status, 200, 'a charset parameter is fine')
})

const outside = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)

t.test('listens on 127.0.0.1 unless told otherwise', { skip: outside === undefined ? 'no non-loopback IPv4 interface here' : false }, async (t) => {
  if (outside === undefined) return
  const sandbox = await startSandbox(t)
  t.match(sandbox.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  const port = new URL(sandbox.url).port
  const reached = await fetch(`http://${outside.address}:${port}/control/state`, { signal: AbortSignal.timeout(3000) }).then(
    () => true,
    () => false,
  )
  t.notOk(reached, `not reachable on ${outside.address}`)
  const open = await createSandbox({ port: 0, host: '0.0.0.0' })
  t.teardown(() => open.close())
  const openPort = new URL(open.url).port
  t.equal((await fetch(`http://${outside.address}:${openPort}/control/state`)).status, 200, 'host 0.0.0.0 is there for who asks for it')
})
