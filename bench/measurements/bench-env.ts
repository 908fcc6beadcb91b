/** What the `npm run bench` measurements share: the scratch world, the running front and worker, and the seeding services. */
import type { CodeService } from '../../src/codes/code-service.js'
import type { PresenceStore } from '../../src/redis/presence-store.js'
import type { Scratch } from '../harness/scratch.js'

/** The service under test, as the measurements see it. */
export interface BenchEnv {
  scratch: Scratch
  codes: CodeService
  presence: PresenceStore
  /** `Bearer <key>` of an API key made for the run. */
  bearer: string
  /** `http://127.0.0.1:<port>/api/v1` of the ceiling server. */
  ceiling: string
  /** Pids of the processes serving the front's requests (the cluster primary's workers). */
  frontWorkerPids: () => Promise<number[]>
  /** Pid of the ceiling server. */
  ceilingPid: number
  /** Pid of redis-server when it runs on this machine, so its CPU can be read. */
  redisPid: number | undefined
}
