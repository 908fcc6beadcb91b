/**
 * `presence-link push add|list|remove|test` against the real MariaDB and the sandbox's fake Open Cloud: the key is
 * stored encrypted (the column is not the key), never printed (`push list` masks it), a wrong PUSH_SECRET cannot
 * decrypt it and says so, `push test` says what Roblox answered.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runCommand } from '../../src/cli/dispatch.js'
import { createLogger } from '../../src/lib/logger.js'
import { createProcessContext, type ProcessContext } from '../../src/runtime/process-context.js'
import { PUSH_TEST_SECRET, startPushWorld, type PushWorld } from '../helpers/push-world.js'

const OPEN_CLOUD_KEY = 'rbx-oc-KEY-0123456789-abcdefghijklmnopqrstuvwxyz-WXYZ'

let world: PushWorld
let keyFile: string

function cliWith(overrides: Record<string, unknown>): ProcessContext {
  const ctx = createProcessContext('cli', { ...world.stack.config, ...overrides } as typeof world.stack.config, createLogger('cli', 'silent'))
  t.teardown(() => ctx.shutdown.run('test done'))
  return ctx
}

const push = (args: string[], ctx: ProcessContext = world.stack.ctx) => runCommand(ctx, ['push', ...args])

t.before(async () => {
  world = await startPushWorld(t)
  const dir = await mkdtemp(join(tmpdir(), 'push-cli-'))
  keyFile = join(dir, 'open-cloud.key')
  await writeFile(keyFile, `${OPEN_CLOUD_KEY}\n`)
  await fetch(`${world.sandbox.url}/control/open-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys: { '4567': OPEN_CLOUD_KEY } }) })
})

t.test('push add stores the key encrypted and never prints it', async (t) => {
  const out = await push(['add', '--key', 'test-server', '--universe', '4567', '--open-cloud-key-file', keyFile])
  t.equal(out.exitCode, 0, out.lines.join('\n'))
  t.same(out.lines, [
    'attached universe 4567 to API key test-server (Open Cloud key ****WXYZ, stored encrypted)',
    'check it with: presence-link push test --key test-server --universe 4567',
  ])
  const row = await world.stack.db.selectFrom('push_targets').selectAll().executeTakeFirstOrThrow()
  t.not(row.key_ciphertext.toString('utf8'), OPEN_CLOUD_KEY, 'the stored column is not the key')
  t.notOk(row.key_ciphertext.includes(Buffer.from(OPEN_CLOUD_KEY.slice(0, 12))), 'nor holds any part of it in clear')
  t.equal(row.key_nonce.length, 12)
  t.equal(row.key_tag.length, 16)
  t.equal(row.key_hint, 'WXYZ')

  t.test('again replaces the key, with a fresh nonce', async (t) => {
    const again = await push(['add', '--key', 'test-server', '--universe', '4567', '--open-cloud-key-file', keyFile])
    t.match(again.lines[0], /^replaced the Open Cloud key of universe 4567 to API key test-server/)
    const rows = await world.stack.db.selectFrom('push_targets').selectAll().execute()
    t.equal(rows.length, 1)
    t.not(rows[0]!.key_nonce.toString('hex'), row.key_nonce.toString('hex'))
  })
})

t.test('push list masks the key', async (t) => {
  const out = await push(['list'])
  t.equal(out.exitCode, 0)
  t.equal(out.lines.length, 1)
  t.match(out.lines[0], /^test-server\tuniverse 4567\tOpen Cloud key \*\*\*\*WXYZ\tset by cli:/)
  t.notOk(out.lines.join('\n').includes(OPEN_CLOUD_KEY.slice(0, 20)))
  t.notOk(out.lines.join('\n').includes(OPEN_CLOUD_KEY.slice(-8)))
})

t.test('push test publishes with the stored key and says what Roblox answered', async (t) => {
  const ok = await push(['test', '--key', 'test-server', '--universe', '4567'])
  t.same(ok, { lines: ['published a test message to universe 4567 (topic presence-link): Open Cloud answered 200 OK'], exitCode: 0 })
  t.same(
    (await world.messages(4567)).map((m) => m.message),
    ['{"v":1,"codes":[]}'],
  )
  await fetch(`${world.sandbox.url}/control/open-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys: { '4567': 'a-different-key' } }) })
  const refused = await push(['test', '--key', 'test-server', '--universe', '4567'])
  t.equal(refused.exitCode, 1)
  t.match(refused.lines[0], /^error: the test message to universe 4567 was not published: Open Cloud answered 401 UNAUTHENTICATED: Invalid API Key$/)
  t.match(refused.lines[1], /^hint: the Open Cloud key is not valid/)
  t.notOk(refused.lines.join('\n').includes(OPEN_CLOUD_KEY))
})

t.test('a wrong PUSH_SECRET cannot decrypt the key: a clear error, and no key printed', async (t) => {
  const wrong = cliWith({ pushSecret: 'x'.repeat(40) })
  const out = await push(['test', '--key', 'test-server', '--universe', '4567'], wrong)
  t.equal(out.exitCode, 1)
  t.match(out.lines[0], /^error: PUSH_SECRET cannot decrypt the Open Cloud key of universe 4567: it is not the secret the key was stored with/)
  t.match(out.lines[0], /or stop pushing to it with `presence-link push remove`$/, 'names push remove as the other way out')
  t.notOk(out.lines.join('\n').includes(OPEN_CLOUD_KEY))
})

t.test('without PUSH_SECRET, push add refuses and says what to set', async (t) => {
  const none = cliWith({ pushSecret: '' })
  const out = await push(['add', '--key', 'test-server', '--universe', '1', '--open-cloud-key-file', keyFile], none)
  t.equal(out.exitCode, 1)
  t.match(out.lines[0], /^error: PUSH_SECRET is not set: Open Cloud keys are stored encrypted with it/)
  t.equal((await push(['list'], none)).exitCode, 0, 'list needs no secret')
})

t.test('refusals: unknown key, missing target, bad arguments, bad key file', async (t) => {
  t.same(await push(['add', '--key', 'nobody', '--universe', '1', '--open-cloud-key-file', keyFile]), { lines: ['error: no active API key named nobody (presence-link keys list)'], exitCode: 1 })
  t.same(await push(['remove', '--key', 'test-server', '--universe', '999']), {
    lines: ['error: API key test-server has no push target for universe 999 (presence-link push list)'],
    exitCode: 1,
  })
  t.equal((await push(['add', '--key', 'test-server', '--universe', 'abc', '--open-cloud-key-file', keyFile])).exitCode, 64)
  t.equal((await push(['add', '--key', 'test-server', '--universe', '0', '--open-cloud-key-file', keyFile])).exitCode, 64)
  t.equal((await push(['add', '--key', 'test-server', '--universe', '1'])).exitCode, 64)
  t.equal((await push(['test', '--universe', '1'])).exitCode, 64)
  t.equal((await push(['add', '--key', 'test-server', '--universe', '1', '--open-cloud-key', 'x'])).exitCode, 2, 'no flag takes the key itself')
  const missing = await push(['add', '--key', 'test-server', '--universe', '1', '--open-cloud-key-file', '/nonexistent/key'])
  t.same(missing, { lines: ['error: cannot read /nonexistent/key: ENOENT'], exitCode: 1 })
  const twoLines = join(await mkdtemp(join(tmpdir(), 'push-cli-')), 'two')
  await writeFile(twoLines, `${OPEN_CLOUD_KEY}\n${OPEN_CLOUD_KEY}\n`)
  const bad = await push(['add', '--key', 'test-server', '--universe', '1', '--open-cloud-key-file', twoLines])
  t.equal(bad.exitCode, 1)
  t.match(bad.lines[0], /one Open Cloud API key/)
  t.notOk(bad.lines.join('\n').includes(OPEN_CLOUD_KEY))
})

t.test('push remove detaches: the server then gets 404 push_target_not_found', async (t) => {
  t.same(await push(['remove', '--key', 'test-server', '--universe', '4567']), {
    lines: ['removed the push target of universe 4567 from API key test-server; its servers get 404 push_target_not_found'],
    exitCode: 0,
  })
  const res = await fetch(`${world.stack.api}/push/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${world.stack.apiKey}` },
    body: JSON.stringify({ universe_id: 4567, server_id: 'job', codes: [] }),
  })
  t.equal(res.status, 404)
  t.same(await push(['list']), { lines: ['no push targets'], exitCode: 0 })
  t.equal(PUSH_TEST_SECRET.length >= 32, true)
})
