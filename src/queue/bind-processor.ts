/** Processes bind jobs (a plain function of the validated job): resolve the platform id when missing, then the code service's bind. */
import type { CodeService } from '../codes/code-service.js'
import type { ResolveUsername } from '../codes/roblox-users.js'
import { BindJobSchema, type BindJob, type BindJobResult, type BoundNotice } from './model/jobs.js'
import { createJobProcessor, type JobProcessor } from './job-processor.js'

/** What a bind needs: the code service, the username resolver and, in the worker, the notice producer. */
export interface BindProcessorDeps {
  codes: CodeService
  resolve: ResolveUsername
  notify?: (notice: BoundNotice, jobId: string) => Promise<void>
}

/** The bind processor as the bind consumer's BullMQ worker runs it (the payload validated first). */
export function createBindJobProcessor(deps: BindProcessorDeps): JobProcessor<BindJobResult> {
  return createJobProcessor('bind job', BindJobSchema, createBindProcessor(deps))
}

/** Creates the processor; `notify` queues the "your code was linked" DM under the given job id. */
export function createBindProcessor(deps: BindProcessorDeps): (data: BindJob, meta: { attemptsMade: number }) => Promise<BindJobResult> {
  return async (data, meta) => {
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
      if (deps.notify !== undefined && result.record !== null && (result.status === 'bound' || meta.attemptsMade > 0)) {
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
