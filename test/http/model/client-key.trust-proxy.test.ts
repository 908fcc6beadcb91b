/**
 * TRUST_PROXY that trusts the whole Internet (or most of it) is refused by the real front process at start, with the
 * reason: otherwise any client could forge X-Forwarded-For and pick a fresh client address per request.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

/** Starts `src/front.ts` through tap's TypeScript loader (transpile only) and collects its exit and stderr. */
function startFront(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', '@tapjs/typescript/import', 'src/front.ts'], {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', METRICS_PORT: '0', FRONT_WORKERS: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

const tooBroad = (entry: string, min: number, family: number) =>
  `  - TRUST_PROXY: ${JSON.stringify(entry)} trusts too much of the Internet: every address in it could forge X-Forwarded-For and pick its own client address; list your proxies or a range of at most /${min} (IPv${family})`

t.test('the front refuses to start with TRUST_PROXY=0.0.0.0/0, ::/0 or a range broader than /8 or /32', async (t) => {
  const ran = await startFront({ TRUST_PROXY: '10.0.0.1, 0.0.0.0/0, ::/0, 4.0.0.0/6, 2001::/16' })
  t.equal(ran.code, 78, 'exit status EX_CONFIG')
  t.equal(
    ran.stderr,
    [
      'presence-link: invalid configuration:',
      tooBroad('0.0.0.0/0', 8, 4),
      tooBroad('::/0', 32, 6),
      tooBroad('4.0.0.0/6', 8, 4),
      tooBroad('2001::/16', 32, 6),
      '',
    ].join('\n'),
  )
})
