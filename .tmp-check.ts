import { createMetricsRegistry } from './src/metrics/registry.js'
process.stdout.write(await createMetricsRegistry().metrics())
