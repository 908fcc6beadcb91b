import t from 'tap'
import { alignRows, formatArgumentLines, formatSynopsis, parseArgv, type ArgsSpec } from '../../src/cli/args.js'

const SPEC = {
  positionals: [
    { name: 'FIRST', summary: 'the first' },
    { name: 'SECOND', summary: 'the second', optional: true },
  ],
  flags: {
    name: { type: 'string', value: 'NAME', required: true, summary: 'a name' },
    count: { type: 'integer', value: 'N', min: 1, max: 10, summary: 'how many' },
    port: { type: 'integer', value: 'N', min: 0, default: 8090, summary: 'a port' },
    dry: { type: 'boolean', summary: 'change nothing' },
  },
} as const satisfies ArgsSpec

const longText = 'x'.repeat(4000)

t.test('a line that parses gives positionals in order and typed flags, defaults filled', async (t) => {
  const cases: Array<[string[], { positionals: string[]; flags: Record<string, unknown> }]> = [
    [[], { positionals: [], flags: { name: undefined, count: undefined, port: 8090, dry: undefined } }],
    [['a', '--name', 'game-eu'], { positionals: ['a'], flags: { name: 'game-eu', port: 8090 } }],
    [['--name=game-eu', 'a', 'b'], { positionals: ['a', 'b'], flags: { name: 'game-eu' } }],
    [['--count', '10', '--port', '0', '--dry'], { positionals: [], flags: { count: 10, port: 0, dry: true } }],
    [['--name', 'two words\nand a newline 🎮'], { positionals: [], flags: { name: 'two words\nand a newline 🎮' } }],
    [['--name', longText], { positionals: [], flags: { name: longText } }],
    [['--name', ''], { positionals: [], flags: { name: '' } }],
    [['--name', '%26'], { positionals: [], flags: { name: '%26' } }],
    [['--name=--json'], { positionals: [], flags: { name: '--json' } }],
    [['--', '--name'], { positionals: ['--name'], flags: { name: undefined } }],
    [['--name', 'a', '--name', 'b'], { positionals: [], flags: { name: 'b' } }],
  ]
  for (const [argv, expected] of cases) {
    const outcome = parseArgv(SPEC, argv)
    t.equal(outcome.kind, 'ok', JSON.stringify(argv).slice(0, 80))
    if (outcome.kind === 'ok') t.match(outcome.args, expected, JSON.stringify(argv).slice(0, 80))
  }
})

t.test('a line that does not parse is refused with a reason that names the problem', async (t) => {
  const cases: Array<[string[], string]> = [
    [['--name', '--json'], '--name needs a value, and --json is not one (write --name=--json if it is)'],
    [['--name', '-h5'], '--name needs a value, and -h5 is not one (write --name=-h5 if it is)'],
    [['--name'], '--name needs a value'],
    [['a', '--name'], '--name needs a value'],
    [['--json'], 'unknown flag --json'],
    [['--name', 'x', '--Name', 'y'], 'unknown flag --Name'],
    [['-x'], 'unknown flag -x'],
    [['--dry=yes'], '--dry takes no value'],
    [['a', 'b', 'c'], 'unexpected argument c'],
    [['a', 'b', '--', 'c'], 'unexpected argument c'],
    [['--count', 'abc'], '--count needs a whole number from 1 to 10, not "abc"'],
    [['--count', '0'], '--count needs a whole number from 1 to 10, not "0"'],
    [['--count', '11'], '--count needs a whole number from 1 to 10, not "11"'],
    [['--count', '1e1'], '--count needs a whole number from 1 to 10, not "1e1"'],
    [['--count', '0x5'], '--count needs a whole number from 1 to 10, not "0x5"'],
    [['--count', ' 5'], '--count needs a whole number from 1 to 10, not " 5"'],
    [['--count', '5.0'], '--count needs a whole number from 1 to 10, not "5.0"'],
    [['--count', ''], '--count needs a whole number from 1 to 10, not ""'],
    [['--count=-1'], '--count needs a whole number from 1 to 10, not "-1"'],
    [['--port', '99999999999999999999'], '--port needs a whole number of at least 0, not "99999999999999999999"'],
  ]
  for (const [argv, message] of cases) t.same(parseArgv(SPEC, argv), { kind: 'error', message }, JSON.stringify(argv))
})

t.test('--help and -h ask for help, even on a line that would be refused', async (t) => {
  for (const argv of [['--help'], ['-h'], ['a', '--name', 'x', '-h'], ['--name', '--help'], ['--json', '--help'], ['a', 'b', 'c', '--help']]) {
    t.same(parseArgv(SPEC, argv), { kind: 'help' }, argv.join(' '))
  }
  t.same(parseArgv(SPEC, ['--', '--help']), { kind: 'ok', args: { positionals: ['--help'], flags: { name: undefined, count: undefined, port: 8090, dry: undefined } } }, 'after -- it is an argument')
  t.same(parseArgv(SPEC, ['--help=1']), { kind: 'error', message: '--help takes no value' })
})

t.test('a command without arguments refuses any', async (t) => {
  t.same(parseArgv({}, []), { kind: 'ok', args: { positionals: [], flags: {} } })
  t.same(parseArgv({}, ['extra']), { kind: 'error', message: 'unexpected argument extra' })
  t.same(parseArgv({}, ['--name', 'x']), { kind: 'error', message: 'unknown flag --name' })
})

t.test('a repeating last positional takes any number of values', async (t) => {
  const spec = { positionals: [{ name: 'CONSUMER', summary: 'c', optional: true, repeats: true }] } as const
  t.same(parseArgv(spec, []), { kind: 'ok', args: { positionals: [], flags: {} } })
  t.same(parseArgv(spec, ['bind', 'log', 'audit', 'delivery']), { kind: 'ok', args: { positionals: ['bind', 'log', 'audit', 'delivery'], flags: {} } })
  t.same(parseArgv(spec, ['bind', '--all']), { kind: 'error', message: 'unknown flag --all' })
})

t.test('usage text', async (t) => {
  t.equal(formatSynopsis(SPEC), 'FIRST [SECOND] --name NAME [--count N] [--port N] [--dry]')
  t.equal(formatSynopsis({}), '')
  t.equal(formatSynopsis({ positionals: [{ name: 'C', summary: '', optional: true, repeats: true }] }), '[C...]')
  t.same(formatArgumentLines(SPEC), [
    '  FIRST        the first',
    '  SECOND       the second',
    '  --name NAME  a name (required)',
    '  --count N    how many',
    '  --port N     a port (default 8090)',
    '  --dry        change nothing',
    '  -h, --help   print this help',
  ])
  t.same(alignRows([['a', 'one'], ['b'.repeat(12), 'two']], 5), ['  a      one', `  ${'b'.repeat(12)}`, '         two'])
  t.same(alignRows([]), [])
})
