/** The /proc readers the benchmark samples CPU and memory with, on real pids (Linux only). */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { childPids, cpuSeconds, rssBytes, sumCpuSeconds } from '../../bench/harness/proc-sampler.js'

const TICK = 0.01

t.test('cpuSeconds of this process lies between two process.cpuUsage readings taken around it', async (t) => {
  let x = 0
  for (let i = 0; i < 5e7; i++) x += i % 7
  t.ok(x > 0)
  const before = process.cpuUsage()
  const read = await cpuSeconds(process.pid)
  const after = process.cpuUsage()
  const seconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6
  // /proc counts in clock ticks of 10 ms, so allow one tick each way.
  t.ok(read >= seconds(before) - TICK, `${read} >= ${seconds(before)}`)
  t.ok(read <= seconds(after) + TICK, `${read} <= ${seconds(after)}`)
  t.ok(read > 0)
})

t.test('sumCpuSeconds adds the pids up', async (t) => {
  const one = await cpuSeconds(process.pid)
  const two = await sumCpuSeconds([process.pid, process.pid])
  t.ok(Math.abs(two - 2 * one) <= 2 * TICK, `${two} is about twice ${one}`)
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
