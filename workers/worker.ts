/** Entry point: every queue consumer (bind, log) in one process. `presence-link worker bind` starts only some. */
import { CONSUMERS, startConsumers, type ConsumerName } from '../src/runtime/consumers.js'
import { runProcess } from '../src/runtime/process-context.js'

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const unknown = asked.filter((a) => !(CONSUMERS as readonly string[]).includes(a))
if (unknown.length > 0) {
  process.stderr.write(`presence-link worker: unknown consumer ${unknown.join(', ')}; known: ${CONSUMERS.join(', ')}\n`)
  process.exit(64)
}
const names = asked.length === 0 ? CONSUMERS : (asked as ConsumerName[])
await runProcess(`worker`, async (ctx) => {
  await startConsumers(ctx, names)
})
