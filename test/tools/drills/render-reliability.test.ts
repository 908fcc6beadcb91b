/** RELIABILITY.md: a drill row per outcome, the verdict rule, and the command and machine in the header. */
import t from 'tap'
import { drillPassed, type DrillOutcome } from '../../../tools/drills/outcome.js'
import { renderReliability, renderRow } from '../../../tools/drills/render-reliability.js'

const clean: DrillOutcome = {
  name: 'worker-sigkill',
  fault: 'worker SIGKILL, restarted 2 s later',
  counted: 'log events',
  accepted: 3574,
  stored: 3574,
  lost: 0,
  duplicated: 0,
  clientErrors: 'none',
  recoverySeconds: 2.04,
  problems: [],
  notes: ['binds: 71 bound of 71, 71 linked in MySQL'],
}

t.test('drillPassed', async (t) => {
  t.ok(drillPassed(clean), 'nothing lost, duplicated or left running')
  t.notOk(drillPassed({ ...clean, lost: 1 }), 'one lost event fails')
  t.notOk(drillPassed({ ...clean, duplicated: 1 }), 'one duplicate fails')
  t.notOk(drillPassed({ ...clean, problems: ['7 processes survived the stop'] }), 'a problem fails')
  t.notOk(drillPassed({ ...clean, recoverySeconds: null }), 'never recovering fails')
  t.notOk(drillPassed({ ...clean, error: 'mariadbd did not start' }), 'a drill that could not finish fails')
})

t.test('renderRow', async (t) => {
  t.equal(
    renderRow(clean),
    '| worker-sigkill | worker SIGKILL, restarted 2 s later | log events | 3,574 | 3,574 | 0 | 0 | none | 2.0 s | pass | binds: 71 bound of 71, 71 linked in MySQL |',
  )
  t.equal(
    renderRow({ ...clean, name: 'mariadb-stopped', accepted: 2524, stored: 994, lost: 1530, clientErrors: 'log 503 ×3', recoverySeconds: null, notes: [] }),
    '| mariadb-stopped | worker SIGKILL, restarted 2 s later | log events | 2,524 | 994 | **1,530** | 0 | log 503 ×3 | never | **FAIL** | - |',
    'lost in bold, no recovery, no notes',
  )
  t.equal(
    renderRow({ ...clean, problems: ['7 processes survived the stop'], error: 'x', notes: ['a | b', 'c\nd'] }),
    '| worker-sigkill | worker SIGKILL, restarted 2 s later | log events | 3,574 | 3,574 | 0 | 0 | none | 2.0 s | **FAIL** | **7 processes survived the stop**; drill error: x; a \\| b; c d |',
    'problems and errors lead the notes; pipes and newlines cannot break the table',
  )
})

t.test('renderReliability', async (t) => {
  const text = renderReliability({
    startedAt: new Date('2026-11-23T07:14:05Z'),
    seconds: 91.4,
    command: 'npm run drills -- --short',
    machine: { cores: 2, cpu: 'AMD EPYC', node: 'v20.20.2', redis: '7.0.15', mariadb: '10.11.19-MariaDB', os: 'Linux 6.1' },
    load: { logsPerSecond: 250, bindsPerSecond: 5, pollsPerSecond: 20 },
    outcomes: [clean, { ...clean, name: 'redis-blip', duplicated: 2 }],
  })
  t.match(text, /^# Reliability\n/)
  t.match(text, 'Command: `npm run drills -- --short`')
  t.match(text, 'Run: 2026-11-23 07:14 UTC, 91 s; 1 of 2 drills passed.')
  t.match(text, 'Machine: 2 CPUs (AMD EPYC), Linux 6.1, Node v20.20.2, Redis 7.0.15 (private, AOF everysec), MariaDB 10.11.19-MariaDB (private).')
  t.match(text, '250 log events/s, 5 binds/s, 20 callbacks polls/s')
  t.match(text, '| drill | fault | counted | accepted | stored | lost | duplicated | client errors | recovery | verdict | notes |')
  t.match(text, renderRow(clean))
  t.match(text, '| redis-blip |')
  t.ok(text.endsWith('\n'), 'ends with a newline')
})
