/** The scenarios of `npm run hosts`, in the order they run (each leaves every host up and every part running). */
import type { Deployment } from './deployment.js'
import type { ScenarioOutcome } from './scenario.js'
import { capacityScenario } from './scenarios/capacity.js'
import { clockScenario } from './scenarios/clock.js'
import { dataCutScenario } from './scenarios/data-cut.js'
import { dataPartitionScenario } from './scenarios/data-partition.js'
import { dbCutScenario } from './scenarios/db-cut.js'
import { edgeScenario } from './scenarios/edge.js'
import { frontCutScenario } from './scenarios/front-cut.js'
import { gatewayCutScenario } from './scenarios/gateway-cut.js'
import { limitsScenario } from './scenarios/limits.js'
import { presenceScenario } from './scenarios/presence.js'
import { workerCutScenario } from './scenarios/worker-cut.js'

/** One scenario. */
export interface Scenario {
  name: string
  title: string
  run(dep: Deployment, log: (message: string) => void): Promise<ScenarioOutcome>
}

/** Every scenario. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'limits', title: 'rate limits and the unknown-code budget hold per client across both fronts', run: limitsScenario },
  { name: 'edge', title: 'the balancer answers at once what the fronts would leave hanging', run: edgeScenario },
  { name: 'presence', title: 'a presence change reaches polls and streams on both fronts', run: presenceScenario },
  { name: 'front-cut', title: 'front-a cut off: the balancer stops sending to it, streams move, nothing stale after its return', run: frontCutScenario },
  { name: 'gateway-cut', title: "gateway-b cut off: shard 1 turns to No activity in the window and comes back, shard 0 unaffected", run: gatewayCutScenario },
  { name: 'worker-cut', title: 'worker cut off under log load: nothing accepted is lost', run: workerCutScenario },
  { name: 'db-cut', title: "the writer Galera node's host cut off under load: the balancer moves to the next node, nothing committed is lost", run: dbCutScenario },
  { name: 'data-cut', title: "the Redis primary's host cut off under load: the Sentinels fail over, nothing accepted is lost or stored twice", run: dataCutScenario },
  { name: 'data-partition', title: 'the Redis primary reached by one front only: it refuses writes, and nothing it acknowledged is lost after the heal', run: dataPartitionScenario },
  { name: 'clock', title: 'a clock offset on one gateway host does not change what fronts show', run: clockScenario },
  { name: 'capacity', title: 'throughput straight at a front and through the balancer', run: capacityScenario },
]
