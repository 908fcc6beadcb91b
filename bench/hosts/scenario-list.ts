/** The scenarios of `npm run hosts`, in the order they run (each leaves every host up and linked). */
import type { Deployment } from './deployment.js'
import type { ScenarioOutcome } from './scenario.js'
import { presenceScenario } from './scenarios/presence.js'

/** One scenario. */
export interface Scenario {
  name: string
  title: string
  run(dep: Deployment, log: (message: string) => void): Promise<ScenarioOutcome>
}

/** Every scenario. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'presence', title: 'a presence change reaches polls and streams on both fronts', run: presenceScenario },
]
