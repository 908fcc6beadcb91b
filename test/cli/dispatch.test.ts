import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { formatSynopsis } from '../../src/cli/args.js'
import { COMMANDS } from '../../src/cli/command-table.js'
import { resolveCommand, type Resolution } from '../../src/cli/dispatch.js'
import { readPackageVersion } from '../../src/cli/package-version.js'

/** Every command line that runs something, as typed after `presence-link`, with its table entry. */
const LEAVES = COMMANDS.flatMap((c) => (c.kind === 'group' ? c.commands.map((s) => ({ path: `${c.name} ${s.name}`, command: s })) : [{ path: c.name, command: c }]))

function printed(r: Resolution): { lines: string[]; exitCode: number } {
  if (r.kind !== 'print') throw new Error(`expected output, got ${r.kind}`)
  return r.output
}

t.test('help', async (t) => {
  t.test('every command and subcommand answers --help and -h with its usage and one line per argument', async (t) => {
    for (const { path, command } of LEAVES) {
      for (const help of ['--help', '-h']) {
        const out = printed(resolveCommand([...path.split(' '), help]))
        t.equal(out.exitCode, 0, `${path} ${help}`)
        t.equal(out.lines[0], `usage: presence-link ${path}${formatSynopsis(command.args) === '' ? '' : ` ${formatSynopsis(command.args)}`}`, path)
        t.equal(out.lines[2], command.summary, path)
        for (const p of command.args.positionals ?? []) t.ok(out.lines.some((l) => l.startsWith(`  ${p.name}`) && l.includes(p.summary)), `${path}: ${p.name}`)
        for (const [name, flag] of Object.entries(command.args.flags ?? {})) t.ok(out.lines.some((l) => l.startsWith(`  --${name}`) && l.includes(flag.summary)), `${path}: --${name}`)
        t.ok(out.lines.some((l) => l.startsWith('  -h, --help')), `${path}: -h`)
      }
    }
  })

  t.test('every group answers --help with its subcommands, one line each', async (t) => {
    for (const group of COMMANDS) {
      if (group.kind !== 'group') continue
      const out = printed(resolveCommand([group.name, '--help']))
      t.equal(out.exitCode, 0)
      t.equal(out.lines[0], `usage: presence-link ${group.name} SUBCOMMAND [ARGUMENTS]`)
      for (const s of group.commands) {
        // A long synopsis puts its summary on the next line.
        const at = out.lines.findIndex((l) => l.startsWith(`  ${s.name}${formatSynopsis(s.args) === '' ? '' : ` ${formatSynopsis(s.args)}`}`))
        t.ok(at > 0 && (out.lines[at]!.endsWith(s.summary) || out.lines[at + 1]!.trim() === s.summary), `${group.name} ${s.name}`)
      }
    }
  })

  t.test('presence-link --help (and help, -h, nothing) lists every command line', async (t) => {
    for (const argv of [['--help'], ['-h'], ['help'], []]) {
      const out = printed(resolveCommand(argv))
      t.equal(out.exitCode, 0, argv.join(' '))
      t.match(out.lines[0], /^presence-link: /)
      for (const { path } of LEAVES) t.ok(out.lines.some((l) => l.startsWith(`  ${path}`)), path)
    }
  })

  t.test('the README invocations resolve', async (t) => {
    const cases: Array<[string[], string, string[]]> = [
      [['keys', 'create', '--name', 'my-game'], 'keys create', []],
      [['sandbox', '--port', '8091', '--shards', '2'], 'sandbox', []],
      [['worker', 'bind', 'log'], 'worker', ['bind', 'log']],
      [['worker', 'delivery'], 'worker', ['delivery']],
      [['codes', 'ban', 'ABCD'], 'codes ban', ['ABCD']],
      [['logs', 'replay', '--category', 'server', '--since', '2024-05-01T12:00:00Z'], 'logs replay', []],
      [['watchlist', 'add', '4242', '--reason', 'speed exploit'], 'watchlist add', ['4242']],
    ]
    for (const [argv, path, positionals] of cases) {
      const r = resolveCommand(argv)
      t.ok(r.kind === 'admin' || r.kind === 'process', argv.join(' '))
      if (r.kind === 'admin') t.equal(r.path, path)
      if (r.kind === 'admin' || r.kind === 'process') t.same(r.args.positionals, positionals, argv.join(' '))
    }
    const sandbox = resolveCommand(['sandbox', '--port', '8091', '--shards', '2'])
    t.match(sandbox, { kind: 'process', argv: ['--port', '8091', '--shards', '2'], args: { flags: { port: 8091, shards: 2 } } })
    t.match(resolveCommand(['sandbox']), { kind: 'process', args: { flags: { port: 8090, shards: 1 } } })
    t.match(resolveCommand(['keys', 'create', '--name', 'my-game']), { kind: 'admin', args: { flags: { name: 'my-game' } } })
  })
})

t.test('refusals', async (t) => {
  t.test('a line that does not parse exits 2 with the reason and the usage, and resolves to nothing that runs', async (t) => {
    const sandboxUsage = 'usage: presence-link sandbox [--port N] [--shards N] [--host H] [--token T] [--guild ID]'
    const cases: Array<[string[], string, string, string]> = [
      [['keys', 'create', '--name', '--json'], 'error: --name needs a value, and --json is not one (write --name=--json if it is)', 'usage: presence-link keys create --name NAME', 'keys create'],
      [['keys', 'create', '--name', 'a', '--json'], 'error: unknown flag --json', 'usage: presence-link keys create --name NAME', 'keys create'],
      [['keys', 'list', 'all'], 'error: unexpected argument all', 'usage: presence-link keys list', 'keys list'],
      [['codes', 'show', 'ABCD', 'EFGH'], 'error: unexpected argument EFGH', 'usage: presence-link codes show CODE', 'codes show'],
      [['watchlist', 'remove', '5', '--reason', 'x'], 'error: unknown flag --reason', 'usage: presence-link watchlist remove ROBLOX_USER_ID', 'watchlist remove'],
      [['sandbox', '--port', 'notanumber'], 'error: --port needs a whole number from 0 to 65535, not "notanumber"', sandboxUsage, 'sandbox'],
      [['sandbox', '--shards', '0'], 'error: --shards needs a whole number of at least 1, not "0"', sandboxUsage, 'sandbox'],
      [['sandbox', '--port'], 'error: --port needs a value', sandboxUsage, 'sandbox'],
      [['serve', 'now'], 'error: unexpected argument now', 'usage: presence-link serve', 'serve'],
      [['worker', '--all'], 'error: unknown flag --all', 'usage: presence-link worker [CONSUMER...]', 'worker'],
      [['migrate', '--force'], 'error: unknown flag --force', 'usage: presence-link migrate', 'migrate'],
    ]
    for (const [argv, error, usage, path] of cases) {
      t.same(printed(resolveCommand(argv)), { lines: [error, usage, `run \`presence-link ${path} --help\` for details`], exitCode: 2 }, argv.join(' '))
    }
  })

  t.test('an unknown flag, command or subcommand does not parse either: exit 2, naming what there is', async (t) => {
    const top = 'run `presence-link --help` for the commands'
    const keys = ['error: keys takes create --name NAME, list, revoke NAME, or usage [--since 1h|24h]', 'run `presence-link keys --help` for details']
    const cases: Array<[string[], string[]]> = [
      [['--bogus'], ['error: unknown flag --bogus', top]],
      [['-x'], ['error: unknown flag -x', top]],
      [['--bogus', 'keys', 'list'], ['error: unknown flag --bogus', top]],
      [['launch'], ['error: unknown command launch', top]],
      [['KEYS', 'list'], ['error: unknown command KEYS', top]],
      [['keys'], keys],
      [['keys', 'explode'], keys],
      [['keys', '--name', 'x'], keys],
      [['keys', '--bogus'], keys],
    ]
    for (const [argv, lines] of cases) t.same(printed(resolveCommand(argv)), { lines, exitCode: 2 }, argv.join(' '))
    t.equal(printed(resolveCommand(['logs', 'tail'])).lines[0], [
        'error: logs takes replay --category CATEGORY --since ISO_TIME, prune [--dry-run] [--days N], or search [--category CATEGORY] [--event-type TYPE]',
        '[--roblox-user ID] [--username NAME] [--code CODE] [--since TIME] [--until TIME] [--before ID] [--limit N] [--json]',
      ].join(' '))
    t.equal(
      printed(resolveCommand(['codes', 'launch'])).lines[0],
      'error: codes takes issue --chat-user ID, show CODE, ban CODE, unban CODE, pause CODE, resume CODE, reset CODE, revoke CODE, or rotate --chat-user ID',
    )
    t.equal(
      printed(resolveCommand(['infractions'])).lines[0],
      'error: infractions takes list [--code CODE] [--roblox-user ID] [--chat-user ID] [--before ID] [--limit N], or pardon ID [--reason TEXT]',
    )
  })

  t.test('--version resolves to the version', async (t) => {
    t.same(resolveCommand(['--version']), { kind: 'version' })
  })
})

t.test('the version comes from the nearest presence-link package.json above the module', async (t) => {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  t.equal(readPackageVersion(), manifest.version, 'from the source tree')
  const root = await mkdtemp(join(tmpdir(), 'pl-version-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  // The Docker image: /app/package.json beside /app/dist/src/cli/package-version.js; a stray package.json in between is skipped.
  await mkdir(join(root, 'app', 'dist', 'src', 'cli'), { recursive: true })
  await writeFile(join(root, 'app', 'package.json'), JSON.stringify({ name: 'presence-link', version: '9.8.7' }))
  await writeFile(join(root, 'app', 'dist', 'package.json'), JSON.stringify({ type: 'module' }))
  t.equal(readPackageVersion(pathToFileURL(join(root, 'app', 'dist', 'src', 'cli', 'package-version.js'))), '9.8.7')
  t.throws(() => readPackageVersion(pathToFileURL(join(root, 'elsewhere', 'x.js'))), /no presence-link package.json/)
})
