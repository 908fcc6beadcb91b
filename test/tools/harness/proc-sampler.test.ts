/** The /proc readers the benchmark samples CPU and memory with, on real pids (Linux only). */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { childPids, cpuMeter, cpuSeconds, rssBytes } from '../../../tools/harness/proc-sampler.js'

/** /proc's figures are tick-sampled and scaled by the kernel, so they may differ from getrusage by a few ticks. */
const SLACK = 0.1

const used = (u: NodeJS.CpuUsage = process.cpuUsage()) => (u.user + u.system) / 1e6

t.test('cpuSeconds of this process agrees with process.cpuUsage readings taken around it', async (t) => {
  // Far more CPU than the slack, so reading a neighbouring field (majflt, stime alone, cutime) could not pass.
  let x = 0
  while (used() < 0.5) for (let i = 0; i < 1e6; i++) x += i % 7
  t.ok(x >= 0)
  const before = used()
  const read = await cpuSeconds(process.pid)
  const after = used()
  t.ok(read >= before - SLACK, `${read} >= ${before} - ${SLACK}`)
  t.ok(read <= after + SLACK, `${read} <= ${after} + ${SLACK}`)
})

t.test('cpuMeter adds the pids up (a pid given twice counts twice)', async (t) => {
  const meter = await cpuMeter([process.pid, process.pid])
  const before = used()
  let x = 0
  while (used() < before + 0.3) for (let i = 0; i < 1e6; i++) x += i % 7
  t.ok(x >= 0)
  const spent = await meter.spent()
  const after = used()
  t.ok(spent >= 2 * (0.3 - SLACK) && spent <= 2 * (after - before + SLACK), `${spent} is about twice the 0.3 s this process spun`)
})

t.test('rssBytes of this process is near what Node reports for it', async (t) => {
  const read = await rssBytes(process.pid)
  const node = process.memoryUsage().rss
  t.ok(read > node / 2 && read < node * 2, `${read} is near ${node}`)
})

t.test('childPids lists a spawned child, and a gone pid reads as nothing', async (t) => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  t.teardown(() => child.kill('SIGKILL'))
  t.ok((await childPids(process.pid)).includes(child.pid!))
  child.kill('SIGKILL')
  await once(child, 'exit')
  t.notOk((await childPids(process.pid)).includes(child.pid!))
  t.ok(Number.isNaN(await cpuSeconds(child.pid!)))
  t.ok(Number.isNaN(await rssBytes(child.pid!)))
})

t.test('cpuMeter counts what a pid used in between, and leaves out a pid that ended meanwhile instead of reading NaN', async (t) => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  t.teardown(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 200))
  const meter = await cpuMeter([process.pid, child.pid!])
  const before = used()
  let x = 0
  while (used() < before + 0.3) for (let i = 0; i < 1e6; i++) x += i % 7
  t.ok(x >= 0)
  child.kill('SIGKILL')
  await once(child, 'exit')
  const spent = await meter.spent()
  t.ok(spent >= 0.3 - SLACK && spent <= used() - before + SLACK, `${spent} is about the 0.3 s this process spun`)
  t.equal(await (await cpuMeter([])).spent(), 0)
})
