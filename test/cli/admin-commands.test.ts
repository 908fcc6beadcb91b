import t from 'tap'
import { codesCommand, keysCommand } from '../../src/cli/in-process.js'
import { getText, postJson, startStack, type Stack } from '../helpers/stack.js'

let stack: Stack

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' } })
})

const last = (out: { lines: string[] }) => out.lines[out.lines.length - 1]

t.test('keys', async (t) => {
  t.test('create prints the key once as its last line, and the key works at once', async (t) => {
    const out = await keysCommand(stack.ctx, ['create', '--name', 'game-eu'])
    t.equal(out.exitCode, 0)
    const key = last(out)!
    t.match(key, /^pl_[a-z0-9]{12}_[a-z0-9]{32}$/)
    const row = await stack.db.selectFrom('api_keys').selectAll().where('name', '=', 'game-eu').executeTakeFirstOrThrow()
    t.not(row.secret_hash, key, 'only a hash is stored')
    t.notOk(key.includes(row.secret_hash))
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, `Bearer ${key}`)
    t.equal(res.status, 200)
  })

  t.test('a second active key with the same name is refused', async (t) => {
    const out = await keysCommand(stack.ctx, ['create', '--name', 'game-eu'])
    t.equal(out.exitCode, 1)
    t.same(out.lines, ['error: an active key named game-eu exists; revoke it first or pick another name'])
  })

  t.test('list shows names and states, never secrets; revoke locks the key out at once', async (t) => {
    const created = await keysCommand(stack.ctx, ['create', '--name', 'game-us'])
    const key = last(created)!
    const listed = await keysCommand(stack.ctx, ['list'])
    t.equal(listed.exitCode, 0)
    t.ok(listed.lines.some((l) => l.startsWith('game-us\t') && l.endsWith('\tactive')))
    t.notOk(listed.lines.join('\n').includes(key.slice(16)))
    const revoked = await keysCommand(stack.ctx, ['revoke', 'game-us'])
    t.same(revoked, { lines: ['revoked game-us'], exitCode: 0 })
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'up' }, `Bearer ${key}`)
    t.equal(res.status, 401)
    t.same(await keysCommand(stack.ctx, ['revoke', 'game-us']), { lines: ['error: no active key named game-us'], exitCode: 1 })
    t.equal(last(await keysCommand(stack.ctx, ['create', '--name', 'game-us']))!.length, 48, 'the name can be reused after a revoke')
  })

  t.test('bad usage exits 64; an unknown subcommand does not parse: 2', async (t) => {
    t.equal((await keysCommand(stack.ctx, ['create'])).exitCode, 64)
    t.equal((await keysCommand(stack.ctx, ['create', '--name', 'bad name'])).exitCode, 64)
    t.equal((await keysCommand(stack.ctx, ['explode'])).exitCode, 2)
  })
})

t.test('codes', async (t) => {
  t.test('issue prints the code last, and gives the live code again on a second call', async (t) => {
    const first = await codesCommand(stack.ctx, ['issue', '--chat-user', '400000000000000001'])
    t.equal(first.exitCode, 0)
    t.equal(first.lines[0], 'issued a new code')
    const code = last(first)!
    t.match(code, /^[A-Z0-9]{4}$/)
    const again = await codesCommand(stack.ctx, ['issue', '--chat-user', '400000000000000001'])
    t.equal(again.lines[0], 'the user already has a live code')
    t.equal(last(again), code)
    t.equal((await getText(`${stack.api}/callbacks/${code}`)).text, `{${code}:\n"Code not linked";\n}\n`)
  })

  t.test('ban, unban, pause, resume, reset and revoke change what callbacks show', async (t) => {
    const code = last(await codesCommand(stack.ctx, ['issue', '--chat-user', '400000000000000002']))!
    await stack.codes.bind(code, { platformUserId: '77', platformUsername: 'Cli_User' }, { source: 'test' })
    const show = async () => (await getText(`${stack.api}/callbacks/${code}`)).text
    t.equal((await codesCommand(stack.ctx, ['ban', code])).exitCode, 0)
    t.equal(await show(), `{${code}:\nCli_User;\n"This code is banned. Contact support for help.";\n}\n`)
    t.same(await codesCommand(stack.ctx, ['ban', code]), { lines: [`error: ban ${code}: the code is already banned`], exitCode: 1 })
    await codesCommand(stack.ctx, ['unban', code])
    await codesCommand(stack.ctx, ['pause', code])
    t.equal(await show(), `{${code}:\n"Detection Paused";\n}\n`)
    await codesCommand(stack.ctx, ['resume', code])
    t.equal(await show(), `{${code};\nCli_User;\nNo activity detected;\n}\n`)
    const reset = await codesCommand(stack.ctx, ['reset', code])
    t.ok(reset.lines.includes('game account: (not linked)'))
    t.equal(await show(), `{${code}:\n"Code not linked";\n}\n`)
    await codesCommand(stack.ctx, ['revoke', code])
    t.equal(await show(), `{${code}:\n"Code not found";\n}\n`)
    const actions = await stack.db.selectFrom('log_entries').select('event_type').where('code', '=', code).orderBy('id').execute()
    t.same(actions.map((a) => a.event_type), ['code_ban', 'code_unban', 'code_pause', 'code_resume', 'code_reset', 'code_revoke'])
  })

  t.test('rotate revokes the live code and prints the new one last', async (t) => {
    const old = last(await codesCommand(stack.ctx, ['issue', '--chat-user', '400000000000000003']))!
    const out = await codesCommand(stack.ctx, ['rotate', '--chat-user', '400000000000000003'])
    t.equal(out.lines[0], `revoked ${old}`)
    const fresh = last(out)!
    t.not(fresh, old)
    t.equal((await getText(`${stack.api}/callbacks/${old}`)).text, `{${old}:\n"Code not found";\n}\n`)
    t.equal((await getText(`${stack.api}/callbacks/${fresh}`)).text, `{${fresh}:\n"Code not linked";\n}\n`)
  })

  t.test('a CODE is read in any case by every codes subcommand', async (t) => {
    // A code of four digits has no case to forgive: issue until one has a letter.
    let code = ''
    for (let user = 400000000000000010n; !/[A-Z]/.test(code); user++) code = last(await codesCommand(stack.ctx, ['issue', '--chat-user', String(user)]))!
    const typed = code.toLowerCase()
    t.equal((await codesCommand(stack.ctx, ['show', typed])).lines[0], `code: ${code}`)
    t.equal((await codesCommand(stack.ctx, ['pause', typed])).lines[2], 'paused: yes')
    t.equal((await codesCommand(stack.ctx, ['resume', `${typed.slice(0, 2)}${code.slice(2)}`])).lines[2], 'paused: no', 'mixed case')
    t.same(await codesCommand(stack.ctx, ['ban', 'qqqq']), { lines: ['error: ban QQQQ: no such code'], exitCode: 1 })
  })

  t.test('show describes a code; bad input exits 64 with a reason', async (t) => {
    const code = last(await codesCommand(stack.ctx, ['issue', '--chat-user', '400000000000000004']))!
    const shown = await codesCommand(stack.ctx, ['show', code])
    t.equal(shown.lines[0], `code: ${code}`)
    t.equal(shown.lines[1], 'state: active')
    t.same(await codesCommand(stack.ctx, ['show', 'QQQQ']), { lines: ['error: no such code QQQQ'], exitCode: 1 })
    const refused = ['error: codes show needs a CODE of 4 characters A-Z or 0-9 (in any case)', 'usage: presence-link codes show CODE', 'run `presence-link codes show --help` for details']
    // Only the case is forgiven: a dotless ı or the ligature ﬀ (which toUpperCase turns into I and FF) is not a letter of a code.
    for (const bad of ['ab!d', 'abc', 'abcde', 'ıabc', 'ﬀab', 'ａbcd', ' abc', '']) t.same(await codesCommand(stack.ctx, ['show', bad]), { lines: refused, exitCode: 64 }, JSON.stringify(bad))
    t.equal((await codesCommand(stack.ctx, ['issue', '--chat-user', 'bob'])).exitCode, 64)
    t.equal((await codesCommand(stack.ctx, ['launch'])).exitCode, 2)
  })
})
