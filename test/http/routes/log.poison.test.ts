/**
 * A poison event (one MySQL refuses: here a test trigger refuses it, as a column too narrow or a rule of the
 * operator's could) among a burst of events posted together: every other event is stored exactly once, and the poison
 * one ends in the failed set, alone and with MySQL's reason, where `presence-link jobs failed` shows it.
 */
import { sql } from 'kysely'
import t from 'tap'
import { parseApiKey } from '../../../src/auth/api-key.js'
import { jobsCommand } from '../../../src/cli/in-process.js'
import { createLogger } from '../../../src/lib/logger.js'
import { idempotentLogJobId } from '../../../src/queue/log-idempotency.js'
import type { RetryPolicy } from '../../../src/queue/model/failure-kind.js'
import type { LogJob } from '../../../src/queue/model/jobs.js'
import type { LogBatch } from '../../../src/queue/model/log-batch.js'
import { QueueName } from '../../../src/queue/names.js'
import { createQueue } from '../../../src/queue/queues.js'
import { startConsumers } from '../../../src/runtime/consumers.js'
import { createProcessContext } from '../../../src/runtime/process-context.js'
import { eventually, postJson, startStack } from '../../helpers/stack.js'

const FAST: RetryPolicy = { baseDelayMs: 50, maxDelayMs: 200, unknownAttempts: 3, jitter: 0 }
const EVENTS = 60
const POISON = 37

t.test('one poison event among sixty posted at once: fifty-nine stored once, the poison one failed alone with its reason', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  await sql`
    CREATE TRIGGER refuse_poison BEFORE INSERT ON log_entries FOR EACH ROW
    IF NEW.description LIKE 'poison%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test trigger'; END IF
  `.execute(stack.db)
  const auth = `Bearer ${stack.apiKey}`
  const answers = await Promise.all(
    Array.from({ length: EVENTS }, (_, i) =>
      postJson(
        `${stack.api}/log/server`,
        { event_type: 'poison_burst', description: i === POISON ? 'poison pill' : `fine #${i}` },
        auth,
        i === POISON ? { 'idempotency-key': 'the-poison-one' } : {},
      ),
    ),
  )
  t.same([...new Set(answers.map((a) => a.status))], [200], 'all accepted (the front cannot know)')

  const ctx = createProcessContext('worker', stack.config, createLogger('worker', stack.config.logLevel))
  t.teardown(() => ctx.shutdown.run('test done'))
  await startConsumers(ctx, ['log'], undefined, { retry: FAST })

  const queue = createQueue(QueueName.Log, stack.redis, stack.ctx.keys.bullPrefix)
  t.teardown(() => queue.close())
  const [failed] = await eventually(async () => {
    const jobs = await queue.getFailed()
    return jobs.length > 0 ? jobs : undefined
  }, 20_000, 'the poison event failed')
  const rows = await stack.db.selectFrom('log_entries').select('description').where('event_type', '=', 'poison_burst').execute()
  const expected = Array.from({ length: EVENTS }, (_, i) => `fine #${i}`).filter((_, i) => i !== POISON)
  t.same(rows.map((r) => r.description).sort(), expected.sort(), 'every other event stored, each once')

  const eventId = idempotentLogJobId(parseApiKey(stack.apiKey)!.id, 'the-poison-one')
  // Alone: re-queued out of its batch under its event id (or, had it been alone in its batch, that batch of one).
  const events = failed!.name === 'log-batch' ? (failed!.data as LogBatch).events.map((e) => e.event as LogJob) : [failed!.data as LogJob]
  t.same(events.map((e) => e.description), ['poison pill'], 'the failed job holds the poison event only')
  if (failed!.name !== 'log-batch') t.equal(failed!.id, eventId, 'under its event id')
  t.equal(failed!.attemptsMade, FAST.unknownAttempts)
  t.match(failed!.failedReason, /refused by the test trigger/)
  const listed = await jobsCommand(stack.ctx, ['failed'])
  t.match(listed.lines[0], new RegExp(`^log\\t${failed!.id}\\tlog(-batch)?\\t3 attempts\\t.*refused by the test trigger`))
  t.equal(listed.lines.at(-1), '1 failed job')
  t.equal(await queue.getFailedCount(), 1, 'nothing else failed')
})
