/** Queue and job names, in one place. */
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
  Audit: 'audit',
  NotifyBound: 'bound',
} as const

/** One of the job names. */
export type JobName = (typeof JobName)[keyof typeof JobName]
