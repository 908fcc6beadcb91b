/**
 * `serve` (src/serve.ts) as a real process: in production, or with SANDBOX=off, it refuses to run without a bot token
 * instead of quietly serving the local fake Discord; SANDBOX=on starts the sandbox on purpose.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const SERVE = fileURLToPath(new URL('../src/serve.ts', import.meta.url))

/** Runs serve with `env` until it exits or prints `until`; then stops it. Ports 43000-43099 only. */
function runServe(env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; out: string }> {
  const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'))
  const child = spawn(process.execPath, [...loader, SERVE], {
    env: {
      ...process.env,
      DISCORD_TOKEN: '',
      SANDBOX: '',
      NODE_ENV: '',
      // Nothing shared is touched even if a part starts: unreachable Redis and MySQL, ports of this task.
      DATABASE_URL: 'mysql://root@127.0.0.1:1/none',
      REDIS_URL: 'redis://127.0.0.1:1',
      PORT: '43041',
      SANDBOX_PORT: '43040',
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      GATEWAY_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  return new Promise((resolve) => {
    // SIGTERM lets serve stop its parts; SIGKILL only if that hangs (it would orphan them).
    const timer = setTimeout(() => {
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref()
    }, 30_000)
    const seen = (chunk: Buffer): void => {
      out += chunk.toString()
      if (until !== undefined && until.test(out)) child.kill('SIGTERM')
    }
    child.stdout.on('data', seen)
    child.stderr.on('data', seen)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

t.test('NODE_ENV=production without DISCORD_TOKEN exits 78 and says why', async (t) => {
  const { code, out } = await runServe({ NODE_ENV: 'production' })
  t.equal(code, 78)
  t.match(out, 'presence-link serve: DISCORD_TOKEN is not set and NODE_ENV is production, so serve will not start against the local Discord sandbox.')
  t.match(out, 'Set DISCORD_TOKEN to the bot token, or set SANDBOX=on to run against the sandbox on purpose.')
  t.notMatch(out, /sandbox ready/, 'no sandbox was started')
})

t.test('SANDBOX=off without DISCORD_TOKEN exits 78 outside production too', async (t) => {
  const { code, out } = await runServe({ SANDBOX: 'off' })
  t.equal(code, 78)
  t.match(out, 'DISCORD_TOKEN is not set and SANDBOX is off')
})

t.test('SANDBOX=on in production goes on to the sandbox on purpose, and says so', async (t) => {
  const { out } = await runServe({ NODE_ENV: 'production', SANDBOX: 'on' }, /LOCAL DISCORD SANDBOX/)
  t.match(out, 'SANDBOX=on: running against the LOCAL DISCORD SANDBOX, not Discord.')
  t.match(out, '"sandbox":"http://127.0.0.1:43040"')
  t.notMatch(out, /will not start/)
})
