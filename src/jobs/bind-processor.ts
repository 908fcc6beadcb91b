/** Processes bind jobs: resolve the platform id when missing, then the code service's bind. */
import { UnrecoverableError, type Job } from 'bullmq'
import * as v from 'valibot'
import type { CodeService } from '../codes/code-service.js'
import type { ResolveUsername } from '../roblox/roblox-users.js'
import { BindJobSchema, type BindJobResult } from '../schemas/jobs.js'

/** Creates the processor function a BullMQ worker runs. */
export function createBindProcessor(deps: { codes: CodeService; resolve: ResolveUsername }) {
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
      return { status: result.status, platformUsername }
    }
    return { status: result.status }
  }
}
