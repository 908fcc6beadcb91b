/** The queue consumers' policy: concurrency per consumer and the log level of each failed attempt. */
import t from 'tap'
import { CONSUMER_CONCURRENCY, failedAttemptLog, JOB_CONSUMERS } from '../../../src/queue/model/consumer-policy.js'
import type { FailureKind } from '../../../src/queue/model/failure-kind.js'

t.test('every job consumer has a concurrency: binds 16, log 32, audit 16', async (t) => {
  t.same(JOB_CONSUMERS, ['bind', 'log', 'audit'])
  t.same(CONSUMER_CONCURRENCY, { bind: 16, log: 32, audit: 16 })
})

t.test('a failed attempt is logged by whether the job is parked and by the kind of failure', async (t) => {
  const cases: Array<[boolean, FailureKind, string, string]> = [
    [true, 'permanent', 'error', 'job failed for good'],
    [true, 'unknown', 'error', 'job failed for good'],
    [true, 'infrastructure', 'error', 'job failed for good'],
    [false, 'infrastructure', 'debug', 'job attempt failed, retrying'],
    [false, 'unknown', 'warn', 'job attempt failed, retrying'],
    [false, 'permanent', 'warn', 'job attempt failed, retrying'],
  ]
  for (const [parked, kind, level, message] of cases) {
    t.same(failedAttemptLog(parked, kind), { level, message }, `${parked ? 'parked' : 'retried'} after ${kind}`)
  }
})
