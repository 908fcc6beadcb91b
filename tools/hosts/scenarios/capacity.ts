/**
 * What the balancer costs and what two fronts give on these hosts: callbacks for 10 linked players, with autocannon
 * (50 connections) straight at front-a and through the balancer (both fronts), alternating, three 5-second runs each,
 * rate limits off for the measurement. All hosts share this machine's two cores, so the ratio between the two in the
 * same run is the figure to read, not the absolute numbers.
 */
import autocannon from 'autocannon'
import { cpuMeter } from '../../harness/proc-sampler.js'
import { descendantPidsSync, type BenchProcess } from '../../harness/processes.js'
import type { Deployment } from '../deployment.js'
import { linkPlayer, setActivity } from '../players.js'
import { median } from '../../harness/stats.js'
import type { ScenarioOutcome } from '../scenario.js'
import { pause } from '../watchers.js'

const RUNS = 3
const SECONDS = 5
const CONNECTIONS = 50

/** A process and everything it started (a front's cluster workers; `ip netns exec` itself execs into the part). */
const treeOf = (p: BenchProcess | undefined): number[] => (p === undefined || p.pid === 0 ? [] : [p.pid, ...descendantPidsSync(p.pid)])

/** Runs the scenario. */
export async function capacityScenario(dep: Deployment, log: (m: string) => void): Promise<ScenarioOutcome> {
  const title = `autocannon, ${CONNECTIONS} connections, callbacks for 10 linked players: ${RUNS} runs of ${SECONDS} s straight at front-a and through the balancer, alternating (rate limits off)`
  const problems: string[] = []
  await Promise.all([dep.start('front-a', { RATE_LIMITS: 'off' }), dep.start('front-b', { RATE_LIMITS: 'off' })])
  const upUntil = Date.now() + 30_000
  while (Date.now() < upUntil) {
    const s = await dep.lbStates().catch(() => null)
    if (s?.['front-a'] === 'UP' && s['front-b'] === 'UP') break
    await pause(200)
  }
  type Run = { rps: number; p99: number; errors: number; non2xx: number; lbCores: number; frontCores: number }
  const results: Record<'direct' | 'balancer', Run[]> = { direct: [], balancer: [] }
  try {
    const players = []
    for (let i = 0; i < 10; i++) players.push(await linkPlayer(dep, 600 + i, (i % 2) as 0 | 1))
    for (const [i, p] of players.entries()) await setActivity(dep, p, [{ type: 2, name: 'Spotify', details: `Song ${i}`, state: 'Artist' }])
    const path = `/callbacks/${players.map((p) => p.code).join('&')}`
    for (let run = 0; run < RUNS; run++) {
      for (const [kind, base] of [['direct', dep.frontApi('front-a')], ['balancer', dep.api]] as const) {
        // CPU used during the run (cores = CPU seconds / wall seconds), read from /proc around it.
        const lbPids = treeOf(dep.lb)
        const frontPids = [...treeOf(dep.parts.get('front-a')), ...treeOf(dep.parts.get('front-b'))]
        const [lbCpu, frontCpu, t0] = [await cpuMeter(lbPids), await cpuMeter(frontPids), Date.now()]
        const r = await autocannon({ url: `${base}${path}`, connections: CONNECTIONS, duration: SECONDS })
        const wall = (Date.now() - t0) / 1000
        const lbCores = (await lbCpu.spent()) / wall
        const frontCores = (await frontCpu.spent()) / wall
        results[kind].push({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, lbCores, frontCores })
        log(`capacity: ${kind} run ${run + 1}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms, CPU: balancer ${lbCores.toFixed(2)}, fronts ${frontCores.toFixed(2)} cores`)
      }
    }
  } finally {
    await Promise.all([dep.start('front-a'), dep.start('front-b')])
  }
  for (const kind of ['direct', 'balancer'] as const) {
    const bad = results[kind].reduce((n, r) => n + r.errors + r.non2xx, 0)
    if (bad > 0) problems.push(`${kind}: ${bad} requests failed or were not 2xx`)
  }
  const rps = (kind: 'direct' | 'balancer') => median(results[kind].map((r) => r.rps))
  const p99 = (kind: 'direct' | 'balancer') => median(results[kind].map((r) => r.p99))
  const cores = (kind: 'direct' | 'balancer', of: 'lbCores' | 'frontCores') => median(results[kind].map((r) => r[of]))
  const perCore = (kind: 'direct' | 'balancer', of: 'lbCores' | 'frontCores') => median(results[kind].map((r) => r.rps / r[of]))
  return {
    name: 'capacity',
    title,
    figures: [
      { label: 'straight at front-a (1 front worker): median req/s, p99', value: `${Math.round(rps('direct'))}, ${p99('direct')} ms` },
      { label: 'through the balancer (2 fronts): median req/s, p99', value: `${Math.round(rps('balancer'))}, ${p99('balancer')} ms` },
      { label: 'balancer / direct throughput', value: (rps('balancer') / rps('direct')).toFixed(2) },
      { label: 'CPU straight at front-a: front cores used, req/s per front core', value: `${cores('direct', 'frontCores').toFixed(2)}, ${Math.round(perCore('direct', 'frontCores'))}` },
      {
        label: 'CPU through the balancer: HAProxy cores, both fronts\' cores; req/s per HAProxy core, per front core',
        value: `${cores('balancer', 'lbCores').toFixed(2)}, ${cores('balancer', 'frontCores').toFixed(2)}; ${Math.round(perCore('balancer', 'lbCores'))}, ${Math.round(perCore('balancer', 'frontCores'))}`,
      },
      { label: 'runs (req/s), direct | balancer', value: `${results.direct.map((r) => Math.round(r.rps)).join(', ')} | ${results.balancer.map((r) => Math.round(r.rps)).join(', ')}` },
    ],
    problems,
  }
}
