/**
 * Queue and job names, in one place, and which consumer reads each queue: the names an operator meets in
 * `presence-link worker CONSUMER`, in logs and metrics (`queue` label) and in `presence-link jobs --queue`.
 */
export const QueueName = {
  Bind: 'bind',
  Log: 'log',
  Audit: 'audit',
  Notify: 'notify',
} as const

/** One of the service's queues. */
export type QueueName = (typeof QueueName)[keyof typeof QueueName]

/** Job names within the queues. */
export const JobName = {
  Bind: 'bind',
  Log: 'log',
  /** Events one front accepted together (src/queue/model/log-batch.ts), on the log queue. */
  LogBatch: 'log-batch',
  Audit: 'audit',
  NotifyBound: 'bound',
} as const

/** One of the job names. */
export type JobName = (typeof JobName)[keyof typeof JobName]

/**
 * The queues each consumer reads, under the consumer's own name: the consumers of `presence-link worker` (bind, log
 * and audit read the queue of their name; delivery reads none, it posts stored log entries from MySQL) and the
 * gateway, which reads notify because the "your code was linked" DM needs its Discord client.
 */
export const CONSUMER_QUEUES = {
  bind: [QueueName.Bind],
  log: [QueueName.Log],
  audit: [QueueName.Audit],
  delivery: [],
  push: [],
  gateway: [QueueName.Notify],
} as const satisfies Record<string, readonly QueueName[]>

/** A consumer named in CONSUMER_QUEUES. */
export type QueueConsumerName = keyof typeof CONSUMER_QUEUES

/**
 * The queues an operator means by `name`: a queue's own name, or a consumer's (all the queues it reads, perhaps
 * none); undefined when it is neither.
 */
export function queuesNamed(name: string): readonly QueueName[] | undefined {
  if ((Object.values(QueueName) as string[]).includes(name)) return [name as QueueName]
  return Object.hasOwn(CONSUMER_QUEUES, name) ? CONSUMER_QUEUES[name as QueueConsumerName] : undefined
}

/** What a queue argument takes, in words: `a queue (bind, ...) or the consumer that reads it (delivery: none; ...)`. */
export const QUEUE_ARGUMENT_TEXT = `a queue (${Object.values(QueueName).join(', ')}) or the consumer that reads it (${Object.entries(CONSUMER_QUEUES)
  .filter(([consumer, queues]) => queues.length !== 1 || queues[0] !== consumer)
  .map(([consumer, queues]) => `${consumer}: ${queues.length === 0 ? 'none' : queues.join(', ')}`)
  .join('; ')})`
