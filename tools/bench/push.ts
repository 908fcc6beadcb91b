/**
 * `npm run bench:push`: push through Open Cloud messaging, measured through the real pipeline
 * (measurements/push-delivery.ts). Prints a report (also written to /tmp/presence-link-bench/push.md, with the figures
 * in push.json) and never touches BENCHMARKS.md. The shape can be changed:
 *
 *   UPDATES=120 PLAYERS=10000 SERVERS=200 CHANGE_EVERY_S=180 MINUTES=3 PUSH_WINDOW_MS=1000 npm run bench:push
 *
 * ONLY=latency or ONLY=volume runs one half.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createBenchLog, runMain, stopAll, stopOnSignals } from '../harness/processes.js'
import { fixed, int, table } from '../harness/stats.js'
import { measurePushLatency, measurePushVolume, type PushLatency, type PushVolume } from './measurements/push-delivery.js'

const OUT_DIR = '/tmp/presence-link-bench'
const log = createBenchLog('push')

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name]
  const n = Number(raw ?? fallback)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1 (got ${raw})`)
  return n
}

function latencySection(r: PushLatency): string {
  return [
    `### Push latency (${r.updates} changes, PUSH_WINDOW_MS ${r.windowMs})`,
    '',
    'From the sandbox sending a PRESENCE_UPDATE (real gateway) to the fake Open Cloud accepting the message with the new block; the baseline is the same change reaching the change feed (what fronts and streams follow).',
    '',
    table(
      ['stage', 'p50 ms', 'p99 ms'],
      [
        ['sandbox to the change feed (baseline)', fixed(r.feedP50Ms, 1), fixed(r.feedP99Ms, 1)],
        ['change feed to Open Cloud (the publisher, window included)', fixed(r.publisherP50Ms, 1), fixed(r.publisherP99Ms, 1)],
        ['sandbox to Open Cloud', fixed(r.p50Ms, 1), fixed(r.p99Ms, 1)],
      ],
    ),
    '',
    `Max ${fixed(r.maxMs, 1)} ms. Ratio to the baseline: p50 ${fixed(r.p50Ms / Math.max(r.feedP50Ms, 0.001), 1)}x, p99 ${fixed(r.p99Ms / Math.max(r.feedP99Ms, 0.001), 1)}x.`,
  ].join('\n')
}

function volumeSection(r: PushVolume): string {
  const messages = r.perMinute.reduce((a, b) => a + b, 0)
  return [
    `### Push volume (${int(r.players)} players in ${r.servers} servers of one universe, each changing every ${r.changeEverySeconds} s, ${r.minutes} min)`,
    '',
    table(
      ['figure', 'value'],
      [
        ['changes written', int(r.changes)],
        ['messages per minute (each minute)', r.perMinute.join(', ')],
        ['messages per minute (median)', fixed([...r.perMinute].sort((a, b) => a - b)[Math.floor(r.perMinute.length / 2)] ?? 0, 0)],
        ['budget per minute (the baseline)', int(r.budgetPerMinute)],
        ['blocks / codes-only messages', `${r.blocksMessages} / ${r.codesMessages}`],
        ['changes per message', fixed(r.changes / Math.max(1, messages), 1)],
        ['write to Open Cloud p50 / p99 ms', `${fixed(r.p50Ms, 1)} / ${fixed(r.p99Ms, 1)}`],
        ['changes never published', int(r.missing)],
      ],
    ),
  ].join('\n')
}

async function main(): Promise<void> {
  const only = process.env.ONLY ?? ''
  const windowMs = numberFrom('PUSH_WINDOW_MS', 1000)
  const sections: string[] = []
  const figures: Record<string, unknown> = {}
  if (only === '' || only === 'latency') {
    const latency = await measurePushLatency(numberFrom('UPDATES', 120), windowMs, log)
    log(`latency: p50 ${fixed(latency.p50Ms, 1)} ms, p99 ${fixed(latency.p99Ms, 1)} ms (feed p50 ${fixed(latency.feedP50Ms, 1)} ms)`)
    sections.push(latencySection(latency))
    figures.latency = latency
  }
  if (only === '' || only === 'volume') {
    const volume = await measurePushVolume(
      {
        players: numberFrom('PLAYERS', 10_000),
        servers: numberFrom('SERVERS', 200),
        changeEverySeconds: numberFrom('CHANGE_EVERY_S', 180),
        minutes: numberFrom('MINUTES', 3),
        windowMs,
      },
      log,
    )
    log(`volume: ${volume.perMinute.join(', ')} messages per minute`)
    sections.push(volumeSection(volume))
    figures.volume = volume
  }
  const report = `## Push through Open Cloud messaging (npm run bench:push, ${new Date().toISOString()})\n\n${sections.join('\n\n')}\n`
  console.log(report)
  await mkdir(OUT_DIR, { recursive: true })
  await writeFile(`${OUT_DIR}/push.md`, report)
  await writeFile(`${OUT_DIR}/push.json`, `${JSON.stringify(figures, null, 1)}\n`)
  log(`wrote ${OUT_DIR}/push.md and push.json`)
}

stopOnSignals(log)
runMain('push', async () => {
  try {
    await main()
  } finally {
    await stopAll()
  }
})
