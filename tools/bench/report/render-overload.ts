/** The overload benchmark's printed report: the backlog second by second (every 5 s), then the totals. */
import type { OverloadResult } from '../measurements/delivery-overload.js'
import { fixed, int, table } from '../../harness/stats.js'

/** The report of one overload run (docs/delivery.md's "Under volume" tables have this layout). */
export function renderOverload(r: OverloadResult): string {
  const { plan } = r
  // About one sample every 5 s (a starved sampler takes them irregularly), and always the last.
  let lastShown = Number.NEGATIVE_INFINITY
  const shown = r.samples.filter((s, i) => {
    const show = s.atSeconds - lastShown >= 5 || i === r.samples.length - 1
    if (show) lastShown = s.atSeconds
    return show
  })
  const series = table(
    ['s', 'accepted', 'pending', 'oldest pending s', 'messages'],
    shown.map((s) => [String(s.atSeconds), int(s.accepted), int(s.pending), fixed(s.oldestPendingSeconds, 1), int(s.messages)]),
  )
  const maxPending = Math.max(0, ...r.samples.map((s) => s.pending))
  const maxAge = Math.max(0, ...r.samples.map((s) => s.oldestPendingSeconds))
  const atEnd = r.samples.filter((s) => s.atSeconds <= plan.seconds).at(-1)
  const states = Object.entries(r.states)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([state, n]) => `${state} ${int(n)}`)
    .join(', ')
  const totals = table(
    ['figure', 'value'],
    [
      ['events accepted', `${int(r.accepted)} of ${int(plan.rate * plan.seconds)} (${plan.rate}/s for ${plan.seconds} s, posted in ${fixed(r.postSeconds, 1)} s)`],
      ['destination', `${r.category} → sandbox ${plan.destination}, Discord's default bucket`],
      ['largest backlog (pending)', int(maxPending)],
      ['backlog when posting ended', atEnd === undefined ? '-' : int(atEnd.pending)],
      ['oldest pending entry, at most', `${fixed(maxAge, 1)} s`],
      ['backlog drained', r.drainSeconds === null ? `no: still pending ${plan.drainSeconds} s after posting ended` : `${fixed(r.drainSeconds, 1)} s after posting ended`],
      ['messages sent (accepted by the sandbox)', int(r.messages)],
      ['of which digests', int(r.digestMessages)],
      ['429s the sandbox answered', int(r.rateLimited)],
      ['entries by delivery state', states],
      ['delay of delivered entries p50 / p95 / max', `${fixed(r.delayP50Ms / 1000, 1)} / ${fixed(r.delayP95Ms / 1000, 1)} / ${fixed(r.delayMaxMs / 1000, 1)} s`],
    ],
  )
  return `\n${series}\n\n${totals}\n\n(${r.note})\n`
}
