/**
 * The front's cluster primary backs off a worker that keeps dying (src/front.ts): here every worker dies at start
 * because another program holds the port without SO_REUSEPORT, and the primary waits 0.5, 1, 2 s (doubling up to 30 s) between forks
 * instead of forking in a tight loop.
 */
import { createServer } from 'node:net'
import t from 'tap'
import { entry, startPart } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { uniqueName } from './helpers/stack.js'

// Each fork loads the TypeScript entry again (seconds on a loaded machine): more than tap's default 120 s may be needed.
t.setTimeout(300_000)

t.test('a front worker that dies at every start is restarted with a growing pause', async (t) => {
  const port = await freePort()
  const squatter = createServer()
  await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => squatter.close(() => resolve())))

  const front = startPart(t, entry('src/front.ts'), {
    DATABASE_URL: 'mysql://root@127.0.0.1:1/unreachable',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: uniqueName(),
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: '0',
    FRONT_WORKERS: '1',
    LOG_LEVEL: 'info',
  })
  const died = (n: number) => (e: Record<string, unknown>) => e.msg === 'front worker died; restarting' && e.failures === n
  const started = Date.now()
  for (let n = 1; n <= 3; n++) await front.waitFor(died(n), 60_000, `death number ${n}`)
  const deaths = front.entries().filter((e) => e.msg === 'front worker died; restarting')
  t.same(
    deaths.slice(0, 3).map((e) => e.restartInMs),
    [500, 1000, 2000],
    'the pause doubles with each death in a row',
  )
  t.ok(Date.now() - started >= 1500, 'three deaths took at least the 0.5 + 1 s of pauses between them')
  t.equal(front.child.exitCode, null, 'the primary itself keeps running')
})
