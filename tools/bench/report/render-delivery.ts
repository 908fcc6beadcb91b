/** The delivery benchmark's printed table and median line (docs/delivery.md's "Measured" table has this layout). */
import type { DeliveryResult, DeliveryRun } from '../measurements/delivery-throughput.js'
import { fixed, int, median, table } from '../../harness/stats.js'

function row(label: string, r: DeliveryRun): string[] {
  return [
    label,
    int(r.entries),
    int(r.entries / r.totalSeconds),
    fixed(r.postSeconds),
    fixed(r.totalSeconds),
    int(r.requests),
    fixed((r.requests / r.entries) * 1000, 1),
    int(r.p50Ms),
    int(r.p95Ms),
  ]
}

/** The table of every run, then the median burst rate and requests per 1,000 entries; `tricklePerSecond` labels the trickle row. */
export function renderDelivery(result: DeliveryResult, tricklePerSecond: number): string {
  const { bursts, trickle, drain } = result
  return `\n${table(
    ['run', 'entries', 'entries/s POST→delivered', 'posting s', 'last delivery s', 'requests', 'requests per 1,000', 'latency p50 ms', 'latency p95 ms'],
    [...bursts.map((r, i) => row(`burst ${i + 1}`, r)), row(`trickle ${tricklePerSecond}/s`, trickle), row('drain (replay, no ingestion)', drain)],
  )}\n\nmedian burst: ${int(median(bursts.map((r) => r.entries / r.totalSeconds)))} entries/s, ${fixed(median(bursts.map((r) => (r.requests / r.entries) * 1000)), 1)} requests per 1,000 entries\n`
}
