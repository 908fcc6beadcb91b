/** Processes bind jobs: resolve the platform id when missing, then the code service's bind. */
import { UnrecoverableError, type Job } from 'bullmq'
import * as v from 'valibot'
import type { CodeService } from '../codes/code-service.js'
import type { ResolveUsername } from '../roblox/roblox-users.js'
import { BindJobSchema, type BindJobResult } from '../schemas/jobs.js'

/** What the chat user is told when their code gets linked. */
export interface BoundNoticeData {
  chatUserId: string
  code: string
  platformUsername: string
  platformUserId: string
}

/** Creates the processor function a BullMQ worker runs; `notify` queues the "your code was linked" DM. */
export function createBindProcessor(deps: {
  codes: CodeService
  resolve: ResolveUsername
  notify?: (notice: BoundNoticeData, jobId: string) => Promise<void>
}) {
  return async (job: Job): Promise<BindJobResult> => {
    const parsed = v.safeParse(BindJobSchema, job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid bind job: ${parsed.issues[0]?.message ?? 'bad payload'}`)
    const data = parsed.output
    let platformUserId = data.platformUserId
    let platformUsername = data.platformUsername
    if (platformUserId === null) {
      const resolved = await deps.resolve(data.platformUsername)
      if (!resolved.ok) return { status: 'error', reason: resolved.reason, message: resolved.message }
      platformUserId = resolved.id
      platformUsername = resolved.name
    }
    const result = await deps.codes.bind(data.code, { platformUserId, platformUsername }, { source: data.source })
    if (result.status === 'bound' || result.status === 'already_bound') {
      // A retried job whose first attempt bound the code (and then failed to queue the DM) sees already_bound:
      // notify again; the notice's job id makes the duplicate a no-op when the first one did get queued.
      if (deps.notify !== undefined && result.record !== null && (result.status === 'bound' || job.attemptsMade > 0)) {
        await deps.notify(
          { chatUserId: result.record.chatUserId, code: data.code, platformUsername, platformUserId },
          `bound-${data.code}-${platformUserId}`,
        )
      }
      return { status: result.status, platformUsername }
    }
    return { status: result.status }
  }
}
