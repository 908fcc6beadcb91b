/**
 * The built CLI as a child process in the Docker image layout: parsing errors and their exit codes, --help, --version,
 * key commands, codes in any case, queue names, and Redis out of reach.
 */
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { COMMANDS } from '../src/cli/command-table.js'
import { buildApp } from './helpers/built-app.js'
import { runBuilt, startBuilt, type Ran } from './helpers/run-built.js'
import { freePort } from './helpers/scratch.js'
import { startStack, type Stack } from './helpers/stack.js'

// Building the CLI once and running some 60 children costs about a minute of CPU; on a loaded 2-core machine that
// has reached tap's default 120 s per file, so this file gets more.
t.setTimeout(300_000)
const PARALLEL = 4

let stack: Stack
let app: string

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-cli-')])
  stack = started
  app = built
})

/** This file's database and Redis prefix, quiet logs; `env` overrides. */
const cliEnv = (env: Record<string, string> = {}) => ({
  DATABASE_URL: stack.config.databaseUrl,
  REDIS_URL: stack.config.redisUrl,
  REDIS_PREFIX: stack.config.redisPrefix,
  LOG_LEVEL: 'silent',
  ...env,
})

/** Starts `node dist/src/cli.js ARGS` (or another built entry) against this file's database and Redis prefix; `env` overrides. */
const start = (args: readonly string[], entry = 'dist/src/cli.js', env: Record<string, string> = {}) => startBuilt(app, args, cliEnv(env), entry)

/** Runs a command line to its end (killed after `withinMs`, if given: `code` is then null). */
const run = (args: readonly string[], entry?: string, env?: Record<string, string>, withinMs?: number): Promise<Ran> =>
  runBuilt(app, args, cliEnv(env), { entry, withinMs })

/** Runs every command line, PARALLEL at a time; results in the same order. */
async function runAll(lines: ReadonlyArray<readonly string[]>): Promise<Ran[]> {
  const results: Ran[] = []
  for (let i = 0; i < lines.length; i += PARALLEL) results.push(...(await Promise.all(lines.slice(i, i + PARALLEL).map((l) => run(l)))))
  return results
}

const keyNames = async () => (await stack.db.selectFrom('api_keys').select('name').orderBy('id').execute()).map((k) => k.name)

t.test('keys create --name --json exits 2 with the usage, and creates no key', async (t) => {
  const before = await keyNames()
  const out = await run(['keys', 'create', '--name', '--json'])
  t.equal(out.code, 2)
  t.equal(out.stdout, '')
  t.equal(
    out.stderr,
    'error: --name needs a value, and --json is not one (write --name=--json if it is)\nusage: presence-link keys create --name NAME\nrun `presence-link keys create --help` for details\n',
  )
  t.same(await keyNames(), before)
  t.notOk((await keyNames()).includes('--json'))
})

t.test('an unknown flag exits 2 with the usage, and creates no key', async (t) => {
  const [unknown, extra] = await runAll([
    ['keys', 'create', '--name', 'my-game', '--json'],
    ['keys', 'create', '--name', 'my-game', 'again'],
  ])
  t.equal(unknown!.code, 2)
  t.match(unknown!.stderr, /^error: unknown flag --json\nusage: presence-link keys create --name NAME\n/)
  t.equal(extra!.code, 2)
  t.match(extra!.stderr, /^error: unexpected argument again\n/)
  t.notOk((await keyNames()).includes('my-game'))
})

t.test('sandbox --port notanumber exits 2, through presence-link and run directly', async (t) => {
  const [viaCli, direct] = await Promise.all([run(['sandbox', '--port', 'notanumber']), run(['--port', 'notanumber'], 'dist/src/sandbox.js')])
  for (const out of [viaCli!, direct!]) {
    t.equal(out.code, 2)
    t.equal(out.stdout, '', 'nothing started')
    t.match(out.stderr, /^error: --port needs a whole number from 0 to 65535, not "notanumber"\nusage: presence-link sandbox \[--port N\] \[--shards N\]/)
  }
})

t.test('--help of every command exits 0 and prints its usage; presence-link --help lists the commands', async (t) => {
  const groups = COMMANDS.filter((c) => c.kind === 'group')
  const lines = [['--help'], ...COMMANDS.map((c) => [c.name, '--help']), ...groups.flatMap((g) => g.commands.map((s) => [g.name, s.name, '-h']))]
  const results = await runAll(lines)
  for (const [i, out] of results.entries()) {
    const line = lines[i]!
    t.equal(out.code, 0, line.join(' '))
    t.equal(out.stderr, '', line.join(' '))
    if (line.length === 1) {
      for (const c of COMMANDS) t.match(out.stdout, new RegExp(`^  ${c.name}\\b`, 'm'), `--help lists ${c.name}`)
    } else {
      t.match(out.stdout, new RegExp(`^usage: presence-link ${line.slice(0, -1).join(' ')}\\b`), line.join(' '))
    }
  }
})

t.test('--version prints the version in the package.json beside dist/', async (t) => {
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  t.same(await run(['--version']), { code: 0, stdout: `${version}\n`, stderr: '' })
})

t.test('the happy paths still work: a key is created and listed; a refused name exits 64 with the usage', async (t) => {
  const [created, refused] = await runAll([
    ['keys', 'create', '--name', 'my-game'],
    ['keys', 'create', '--name', 'bad name'],
  ])
  t.equal(created!.code, 0, created!.stderr)
  const lines = created!.stdout.trimEnd().split('\n')
  t.match(lines[0], /^created API key my-game \(id \S+\); it is shown only once:$/)
  t.match(lines.at(-1), /^pl_[a-z0-9]{12}_[a-z0-9]{32}$/)
  t.ok((await keyNames()).includes('my-game'))
  t.equal(refused!.code, 64)
  t.equal(
    refused!.stderr,
    'error: keys create needs --name of 1-64 letters, digits, _ . -\nusage: presence-link keys create --name NAME\nrun `presence-link keys create --help` for details\n',
  )
  t.notOk((await keyNames()).includes('bad name'))
  const listed = await run(['keys', 'list'])
  t.equal(listed.code, 0)
  t.match(listed.stdout, /^my-game\t\S+\tcreated \S+\tactive$/m)
})

t.test('a process command hands over to its entry with its arguments', async (t) => {
  const child = start(['sandbox', '--port', '38091', '--shards', '2'])
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const ready = await new Promise<{ msg: string; shards: number; url: string }>((resolve, reject) => {
    let buffered = ''
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString()
      const line = buffered.split('\n').find((l) => l.includes('"sandbox ready"'))
      if (line !== undefined) resolve(JSON.parse(line))
    })
  })
  t.match(ready, { msg: 'sandbox ready', shards: 2, url: 'http://127.0.0.1:38091' })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  t.equal(await exited, 0)
})

t.test('a refused top-level line exits 2 with nothing on stdout: unknown flag, command or subcommand', async (t) => {
  const top = 'run `presence-link --help` for the commands\n'
  const keys = 'error: keys takes create --name NAME, list, revoke NAME, or usage [--since 1h|24h]\nrun `presence-link keys --help` for details\n'
  const cases: Array<[string[], string]> = [
    [['--bogus'], `error: unknown flag --bogus\n${top}`],
    [['bogus'], `error: unknown command bogus\n${top}`],
    [['keys', 'bogus'], keys],
    [['keys'], keys],
    [['keys', '--bogus'], keys],
  ]
  const results = await runAll(cases.map(([argv]) => argv))
  for (const [i, out] of results.entries()) t.same(out, { code: 2, stdout: '', stderr: cases[i]![1] }, cases[i]![0].join(' '))
})

t.test('a CODE argument is read in any case; other characters are still refused', async (t) => {
  const issued = await run(['codes', 'issue', '--chat-user', '500000000000000001'])
  const code = issued.stdout.trimEnd().split('\n').at(-1)!
  const [shown, unknown, refused] = await runAll([
    ['codes', 'show', code.toLowerCase()],
    ['codes', 'show', code === 'ZZZZ' ? 'yyyy' : 'zzzz'],
    ['codes', 'show', '0pu!'],
  ])
  t.equal(shown!.code, 0, shown!.stderr)
  t.equal(shown!.stdout.split('\n')[0], `code: ${code}`)
  t.same(unknown, { code: 1, stdout: '', stderr: `error: no such code ${code === 'ZZZZ' ? 'YYYY' : 'ZZZZ'}\n` })
  t.same(refused, {
    code: 64,
    stdout: '',
    stderr: 'error: codes show needs a CODE of 4 characters A-Z or 0-9 (in any case)\nusage: presence-link codes show CODE\nrun `presence-link codes show --help` for details\n',
  })
})

t.test('jobs takes the consumer names presence-link worker uses; infractions list lists', async (t) => {
  const [delivery, gateway, infractions] = await runAll([['jobs', 'failed', '--queue', 'delivery'], ['jobs', 'failed', '--queue', 'gateway'], ['infractions', 'list', '--code', 'ab12']])
  t.same(delivery, {
    code: 0,
    stdout:
      'note: delivery reads no queue: it posts stored log entries; `presence-link destinations list` counts those that failed and `presence-link logs replay` sends them again\nno failed jobs\n',
    stderr: '',
  })
  t.same(gateway, { code: 0, stdout: 'no failed jobs\n', stderr: '' })
  t.same(infractions, { code: 0, stdout: 'no infractions\n', stderr: '' })
})

t.test('with Redis out of reach, every command that needs it fails at once: one error line naming Redis, nothing on stdout', async (t) => {
  const port = await freePort()
  const lines = [
    ['keys', 'create', '--name', 'no-redis'],
    ['keys', 'revoke', 'test-server'],
    ['codes', 'issue', '--chat-user', '500000000000000002'],
    ['codes', 'show', 'AB12'],
    ['codes', 'ban', 'ab12'],
    ['guilds', 'add', '100000000000000009'],
    ['guilds', 'list'],
    ['jobs', 'failed'],
    ['jobs', 'failed', '--queue', 'gateway'],
    ['jobs', 'redrive', '--all'],
  ]
  // A bounded wait, not a timing assertion (time is not asserted in tests; the figures are in the closing notes: 12.5 s
  // before, about 4 s now on a quiet machine, CLI_REDIS_WAIT_MS plus the start). What fails the old CLI here is what it
  // printed: a JSON log line on stdout before its error. The bound only keeps a hung command from hanging the test;
  // module loading alone took several seconds per command while npm test loads both cores (two at a time, 20 s each).
  const results: Ran[] = []
  for (let i = 0; i < lines.length; i += 2) {
    results.push(...(await Promise.all(lines.slice(i, i + 2).map((l) => run(l, undefined, { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' }, 20_000)))))
  }
  for (const [i, out] of results.entries()) {
    t.same(out, { code: 1, stdout: '', stderr: `error: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED); check REDIS_URL\n` }, lines[i]!.join(' '))
  }
  t.notOk((await keyNames()).includes('no-redis'), 'no key half-created')
})
