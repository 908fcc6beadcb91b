/** Operator commands for the job queues: list failed jobs and re-drive them. The last line is the result. */
import { closeJobQueues, listFailedJobs, openJobQueues, redriveAllFailed, redriveJobs, type JobQueues, type RedriveOutcome } from '../queue/failed-jobs.js'
import { QUEUE_ARGUMENT_TEXT, QueueName, queuesNamed } from '../queue/names.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openCliRedis } from './cli-redis.js'
import { usage, type CommandOutput } from './command.js'

/** Every queue, in the order the commands go through them. */
export const JOB_QUEUES: readonly QueueName[] = Object.values(QueueName)

/** Said above the result when `--queue` names a consumer that reads no queue (delivery, push). */
function noQueueNote(name: string): string {
  if (name === 'push') {
    return 'note: push reads no queue: it publishes changed blocks to Open Cloud messaging; its failures are in the worker\'s log and presence_link_push_failures_total'
  }
  return `note: ${name} reads no queue: it posts stored log entries; \`presence-link destinations list\` counts those that failed and \`presence-link logs replay\` sends them again`
}

/** A duration as `1d2h`, `3h4m`, `5m6s` or `7s`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  const d = Math.floor(s / 86400)
  const h = Math.floor((s % 86400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (d > 0) return `${d}d${h}h`
  if (h > 0) return `${h}h${m}m`
  if (m > 0) return `${m}m${s % 60}s`
  return `${s}s`
}

async function openQueues(ctx: ProcessContext, names: readonly QueueName[]): Promise<JobQueues> {
  if (names.length === 0) return []
  const redis = await openCliRedis(ctx)
  const queues = openJobQueues(names, redis, ctx.keys.bullPrefix)
  ctx.shutdown.register('cli-queues', () => closeJobQueues(queues))
  return queues
}

/** The queues `--queue` names (every queue without it), or the refusal. */
function selectQueues(queue: string | undefined): { names: readonly QueueName[]; notes: string[] } | { refused: CommandOutput } {
  if (queue === undefined) return { names: JOB_QUEUES, notes: [] }
  const names = queuesNamed(queue)
  if (names === undefined) return { refused: usage(`--queue takes ${QUEUE_ARGUMENT_TEXT}, not ${JSON.stringify(queue)}`) }
  return { names, notes: names.length === 0 ? [noQueueNote(queue)] : [] }
}

/** `presence-link jobs failed [--queue Q] [--limit N]`. */
export async function failedJobsCommand(ctx: ProcessContext, queue: string | undefined, limit: number): Promise<CommandOutput> {
  const selected = selectQueues(queue)
  if ('refused' in selected) return selected.refused
  const { jobs, total } = await listFailedJobs(await openQueues(ctx, selected.names), limit)
  const now = Date.now()
  const lines = [...selected.notes]
  for (const j of jobs) {
    const reason = j.failedReason.replace(/\s+/g, ' ').slice(0, 200)
    const failed = j.failedAt === null ? '' : `, failed ${formatAge(now - j.failedAt)} ago`
    lines.push(`${j.queue}\t${j.id}\t${j.name}\t${j.attemptsMade} attempt${j.attemptsMade === 1 ? '' : 's'}\taccepted ${formatAge(now - j.acceptedAt)} ago${failed}\t${reason}`)
  }
  const shown = jobs.length < total ? ` (${jobs.length} shown)` : ''
  lines.push(total === 0 ? 'no failed jobs' : `${total} failed job${total === 1 ? '' : 's'}${shown}`)
  return { lines, exitCode: 0 }
}

/** `presence-link jobs redrive [--queue Q] ID... | --all`. */
export async function redriveJobsCommand(ctx: ProcessContext, queue: string | undefined, ids: readonly string[], all: boolean): Promise<CommandOutput> {
  const selected = selectQueues(queue)
  if ('refused' in selected) return selected.refused
  if (all === (ids.length > 0)) return usage('jobs redrive takes job IDs or --all (not both)')
  const queues = await openQueues(ctx, selected.names)
  const outcomes: RedriveOutcome[] = all ? await redriveAllFailed(queues) : await redriveJobs(queues, ids)
  const lines = [...selected.notes]
  let redriven = 0
  for (const o of outcomes) {
    if (o.result === 'redriven') {
      redriven++
      lines.push(`${o.queue}\t${o.id}\tback to wait`)
    } else {
      lines.push(o.result === 'not_found' ? `${o.id}\tno such job${queue === undefined ? '' : ` in ${queue}`}` : `${o.queue}\t${o.id}\tnot failed (left alone)`)
    }
  }
  lines.push(`redriven ${redriven} job${redriven === 1 ? '' : 's'}`)
  return { lines, exitCode: redriven === outcomes.length ? 0 : 1 }
}
