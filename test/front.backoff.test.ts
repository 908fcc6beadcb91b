/**
 * The front's cluster primary backs off a worker that keeps dying (src/front.ts): here the one worker is killed once
 * the front listens, another program takes the port without SO_REUSEPORT meanwhile, and every fork then dies at start;
 * the primary waits 0.5, 1, 2 s (doubling up to 30 s) between forks instead of forking in a tight loop. (A port taken
 * before the front starts stops it instead: test/serve.ports.test.ts.)
 */
import { createServer, type Server } from 'node:net'
import t from 'tap'
import { entry, startPart } from './helpers/parts.js'
import { freePort } from './helpers/scratch.js'
import { uniqueName } from './helpers/stack.js'

// Each fork loads the TypeScript entry again (seconds on a loaded machine): more than tap's default 120 s may be needed.
t.setTimeout(300_000)

/** Listens on `port` (no SO_REUSEPORT) as soon as it is free, trying every 5 ms. */
async function takeWhenFree(port: number): Promise<Server> {
  for (;;) {
    const squatter = createServer()
    const taken = await new Promise<boolean>((resolve) => {
      squatter.once('error', () => resolve(false))
      squatter.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (taken) return squatter
    await new Promise((r) => setTimeout(r, 5))
  }
}

t.test('a front worker that dies at every start is restarted with a growing pause', async (t) => {
  const port = await freePort()
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
  await front.waitFor((e) => e.msg === 'front listening', 120_000, 'the front listening')
  const worker = await front.waitFor((e) => e.process === 'front-worker', 10_000, 'a line of the worker')
  const squatting = takeWhenFree(port)
  process.kill(Number(worker.pid), 'SIGKILL')
  const squatter = await squatting
  t.teardown(() => new Promise<void>((resolve) => squatter.close(() => resolve())))

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
