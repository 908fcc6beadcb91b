/** RELIABILITY.md: the drill table, the command that produced it and the machine it ran on. */
import { drillPassed, type DrillOutcome } from './outcome.js'

/** The facts the report prints about the run. */
export interface ReliabilityRun {
  startedAt: Date
  seconds: number
  /** The command line, e.g. `npm run drills -- --short`. */
  command: string
  machine: { cores: number; cpu: string; node: string; redis: string; mariadb: string; os: string }
  /** Load rates of the drills. */
  load: { logsPerSecond: number; bindsPerSecond: number; pollsPerSecond: number }
  outcomes: readonly DrillOutcome[]
}

const int = (n: number) => n.toLocaleString('en-US')

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

/** The table row of one drill. */
export function renderRow(o: DrillOutcome): string {
  const recovery = o.recoverySeconds === null ? 'never' : `${o.recoverySeconds.toFixed(1)} s`
  const verdict = drillPassed(o) ? 'pass' : '**FAIL**'
  const bold = (n: number) => (n > 0 ? `**${int(n)}**` : int(n))
  const notes = [...o.problems.map((p) => `**${p}**`), ...(o.error === undefined ? [] : [`drill error: ${o.error}`]), ...o.notes]
  return `| ${cell(o.name)} | ${cell(o.fault)} | ${cell(o.counted)} | ${int(o.accepted)} | ${int(o.stored)} | ${bold(o.lost)} | ${bold(o.duplicated)} | ${cell(o.clientErrors)} | ${recovery} | ${verdict} | ${cell(notes.join('; ') || '-')} |`
}

/** The whole report. */
export function renderReliability(run: ReliabilityRun): string {
  const passed = run.outcomes.filter(drillPassed).length
  const m = run.machine
  return [
    '# Reliability',
    '',
    `Written by \`npm run drills\` (tools/drills/drills.ts); see [docs/operations.md](docs/operations.md#fault-drills) for what each drill does.`,
    '',
    `Command: \`${run.command}\`  `,
    `Run: ${run.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${Math.round(run.seconds)} s; ${passed} of ${run.outcomes.length} drills passed.  `,
    `Machine: ${m.cores} CPUs (${m.cpu}), ${m.os}, Node ${m.node}, Redis ${m.redis} (private, AOF everysec), MariaDB ${m.mariadb} (private).  `,
    `Load during every drill: ${int(run.load.logsPerSecond)} log events/s, ${int(run.load.bindsPerSecond)} binds/s, ${int(run.load.pollsPerSecond)} callbacks polls/s, open loop; front with FRONT_WORKERS=2 and one worker process.`,
    '',
    '| drill | fault | counted | accepted | stored | lost | duplicated | client errors | recovery | verdict | notes |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |',
    ...run.outcomes.map(renderRow),
    '',
    '**accepted**: answered `{"status":"logged"}` (a bind: `bound`; delivery: stored entries to deliver). **stored**: of those, in',
    "MySQL (the drill's run tag) after the recovery wait (a bind: the code bound to that account; delivery: posted to the",
    'webhook). **lost**: accepted, not stored. **duplicated**: stored more than once. **client errors**: failed requests by',
    'route and kind (status, `reset`, `refused`, `timeout`). **recovery**: from the end of the fault until the API accepted',
    'again and every event accepted before the end was stored. A drill fails on any lost or duplicated event, on a problem',
    'in bold in its notes (a process left running after a stop, a crashed process, entries out of order), or when the',
    'service never recovered.',
    '',
  ].join('\n')
}
