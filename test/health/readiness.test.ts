/** Readiness of a process (src/health/readiness.ts): bounded checks, the reason of each missing dependency, /readyz. */
import t from 'tap'
import { createReadiness, partReadyCheck, readinessReply, reasonLine } from '../../src/health/readiness.js'

t.test('each check gives its state; a rejection or a false gives the reason; the gauge is set at every run', async (t) => {
  const gauge: Array<[string, boolean]> = []
  const readiness = createReadiness(
    {
      redis: async () => true,
      mysql: async () => {
        throw new Error("Access denied for user 'root'@'localhost'")
      },
      discord: async () => false,
    },
    (dep, up) => gauge.push([dep, up]),
  )
  t.same(await readiness(), { redis: true, mysql: false, discord: false })
  t.same(readiness.reasons(), { mysql: "Access denied for user 'root'@'localhost'", discord: 'not reachable' })
  t.same(gauge, [['redis', true], ['mysql', false], ['discord', false]])
  t.equal(reasonLine(readiness.reasons()), "mysql: Access denied for user 'root'@'localhost'; discord: not reachable")
})

t.test('a check that never answers counts as down, with the bound as its reason', async (t) => {
  const readiness = createReadiness({ redis: () => new Promise<boolean>(() => undefined) })
  t.same(await readiness(), { redis: false })
  t.same(readiness.reasons(), { redis: 'no answer within 2 s' })
})

t.test('the /readyz reply: ready, degraded when only a non-critical dependency is down, not_ready otherwise', async (t) => {
  t.same(readinessReply({ redis: true, mysql: true }, ['redis']), { status: 200, body: '{"status":"ready","redis":"ok","mysql":"ok"}' })
  t.same(readinessReply({ redis: true, mysql: false }, ['redis']), { status: 200, body: '{"status":"degraded","redis":"ok","mysql":"down"}' })
  t.same(readinessReply({ redis: false, mysql: true }, ['redis']), { status: 503, body: '{"status":"not_ready","redis":"down","mysql":"ok"}' })
})

t.test('a part is "starting" (503) until it has started, even with every dependency up', async (t) => {
  let started = false
  const check = partReadyCheck(createReadiness({ redis: async () => true }), () => started)
  t.same(await check(), { status: 503, body: '{"status":"starting","redis":"ok"}' })
  started = true
  t.same(await check(), { status: 200, body: '{"status":"ready","redis":"ok"}' })
})
