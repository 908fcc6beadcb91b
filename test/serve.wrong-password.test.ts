/**
 * A wrong MySQL password fails loudly (issue 19): every command that cannot log in says the server's reason. The
 * CLI's commands (keys list, migrate, codes show) print it on stderr and exit 1 at once; before, they printed nothing
 * and exited 13 (Node's "unsettled top-level await": mysql2's end() after a failed login never settles). Under serve,
 * each part logs it at error level once (not once per retry), and serve's "did not start" error names it; before,
 * only "dependencies missing" and "did not start" were logged, without the reason.
 */
import { createConnection } from 'mysql2/promise'
import t from 'tap'
import { buildApp, startService } from './helpers/built-app.js'
import { runBuilt, type Ran } from './helpers/run-built.js'
import { freePort } from './helpers/scratch.js'
import { eventually, startStack, type Stack } from './helpers/stack.js'

t.setTimeout(300_000)

let app = ''
let stack: Stack
/** DATABASE_URL of this file's database with a password MariaDB refuses. */
let wrongUrl = ''
/** What the server answers that login (`Access denied for user 'root'@'…' (using password: YES)`). */
let refusal = ''

t.before(async () => {
  const [started, built] = await Promise.all([startStack(t, { front: false, consumers: [] }), buildApp(t, 'pl-wrong-password-')])
  stack = started
  app = built
  const url = new URL(stack.config.databaseUrl)
  url.password = 'wrong'
  wrongUrl = url.href
  refusal = await createConnection({ host: url.hostname, port: Number(url.port), user: 'root', password: 'wrong' }).then(
    async (conn) => {
      await conn.end()
      return 'the login was accepted'
    },
    (err: Error) => err.message,
  )
})

/** Runs the built CLI with the wrong password; resolves with its exit status and output (killed after 20 s: code null). */
const cli = (args: readonly string[]): Promise<Ran> =>
  runBuilt(app, args, { DATABASE_URL: wrongUrl, REDIS_URL: stack.config.redisUrl, REDIS_PREFIX: stack.config.redisPrefix, LOG_LEVEL: 'silent' }, { withinMs: 20_000 })

t.test('the server refuses the password (so the cases below mean something)', async (t) => {
  t.match(refusal, /^Access denied for user 'root'@'[^']+' \(using password: YES\)$/)
})

t.test('keys list, migrate and codes show print the server\'s reason on stderr and exit 1', async (t) => {
  const [host, port] = [new URL(wrongUrl).hostname, new URL(wrongUrl).port]
  for (const args of [['keys', 'list'], ['migrate'], ['codes', 'show', 'ABCD']]) {
    t.same(await cli(args), { code: 1, stdout: '', stderr: `error: cannot open MySQL at ${host}:${port}: ${refusal}; check DATABASE_URL\n` }, args.join(' '))
  }
})

t.test('under serve, each part logs the reason once at error level, and serve names it for each late part', async (t) => {
  const service = startService(t, app, stack, process.execPath, ['dist/src/serve.js'], {
    DATABASE_URL: wrongUrl,
    PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
    // serve names the late parts after this; the parts retry once a second meanwhile.
    PART_START_TIMEOUT_MS: '45000',
  })
  const late = await eventually(async () => service.entries().find((e) => e.process === 'serve' && e.level === 50 && Array.isArray(e.parts)), 120_000, "serve's error naming the late parts")
  const reason = `mysql: ${refusal}`
  t.equal(late.msg, `the front answers, but worker and gateway did not start within 45 s (worker: ${reason}; gateway: ${reason})`)
  t.same(late.parts, ['worker', 'gateway'])

  // Seconds of retries, once a second: one line each, at error level, with the server's words.
  const waiting = (part: string) => service.entries().filter((e) => e.process === part && e.msg === 'waiting for dependencies before starting')
  for (const part of ['worker', 'gateway']) {
    t.same(
      waiting(part).map((e) => ({ level: e.level, missing: e.missing, reason: e.reason })),
      [{ level: 50, missing: ['mysql'], reason }],
      `${part}: one line for the whole wait`,
    )
  }
  // The front starts without MySQL (degraded): it says why once, too.
  const frontLines = () => service.entries().filter((e) => e.process === 'front-worker' && e.msg === 'dependencies missing')
  await eventually(async () => (frontLines().length > 0 ? true : undefined), 30_000, "the front worker's line")
  const front = frontLines()
  t.same(
    front.map((e) => ({ level: e.level, reason: e.reason })),
    [{ level: 50, reason }],
    'the front worker: one line',
  )
  t.notOk(service.output().includes('presence-link is up at'), 'never "up"')
})
