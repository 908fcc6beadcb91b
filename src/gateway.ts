/** Entry point: the Discord gateway (presence, slash commands, audit events, bound-code DMs) for SHARD_IDS. */
import { startGateway } from './gateway/gateway-runtime.js'
import { runProcess } from './runtime/process-context.js'

await runProcess('gateway', async (ctx) => {
  await startGateway(ctx)
})
