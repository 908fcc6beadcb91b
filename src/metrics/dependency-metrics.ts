/** `presence_link_dependency_up{dependency}`: what the process's readiness check last saw, 1 reachable, 0 not. */
import { Gauge, type Registry } from 'prom-client'
import { Metric, type Dependency } from './metric-names.js'

/** Sets the gauge of one dependency. */
export type DependencyGauge = (dependency: Dependency, up: boolean) => void

/**
 * Registers the gauge on `registry`. Aggregated over front cluster workers by minimum: a front is up on a dependency
 * only when every worker reaches it.
 */
export function createDependencyGauge(registry: Registry): DependencyGauge {
  const spec = Metric.dependencyUp
  const gauge = new Gauge<'dependency'>({ name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry], aggregator: 'min' })
  return (dependency, up) => gauge.set({ dependency }, up ? 1 : 0)
}
