/**
 * docker-compose.yml and the Dockerfile agree with the configuration: no default secrets, monitoring on loopback only,
 * and each app service gets exactly the variables its process reads (derived from the source by
 * test/helpers/config-reads.ts, declared in src/lib/process-env.ts).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { parseConfig } from '../src/config.js'
import { CONFIG_ENV, PROCESS_CONFIG, processEnv, type ComposeProcess } from '../src/lib/process-env.js'
import { configReads } from './helpers/config-reads.js'
import { run, skipUnlessTool, which } from './helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The secrets compose must be given: it has no default for them. */
const REQUIRED = { MYSQL_PASSWORD: 'pw-for-test', MYSQL_ROOT_PASSWORD: 'root-pw-for-test', GRAFANA_ADMIN_PASSWORD: 'grafana-pw-for-test', DISCORD_TOKEN: 'token-for-test' }

/** Each app service of compose and its process's entry point. */
const ENTRIES: Record<ComposeProcess, string> = { front: 'src/front.ts', worker: 'workers/worker.ts', gateway: 'src/gateway.ts' }

t.test('docker-compose.yml', async (t) => {
  const text = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8')
  const doc = parse(text, { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown>; ports?: string[]; healthcheck?: { test?: string[] } }>
  }

  t.test('is valid for docker-compose config -q', { skip: await skipUnlessTool('docker-compose', 'docker-compose') }, async (t) => {
    const compose = (await which('docker-compose')) ?? 'docker-compose'
    const bare = await run(compose, ['-f', 'docker-compose.yml', 'config', '-q'], ROOT, { MYSQL_PASSWORD: '', MYSQL_ROOT_PASSWORD: '', GRAFANA_ADMIN_PASSWORD: '', DISCORD_TOKEN: '' })
    t.not(bare.code, 0, 'refuses to start without the secrets')
    t.match(bare.stderr, /MYSQL_PASSWORD|MYSQL_ROOT_PASSWORD|GRAFANA_ADMIN_PASSWORD|DISCORD_TOKEN/)
    const r = await run(compose, ['-f', 'docker-compose.yml', 'config', '-q'], ROOT, REQUIRED)
    t.equal(r.code, 0, r.stderr)
    const full = await run(compose, ['-f', 'docker-compose.yml', 'config'], ROOT, REQUIRED)
    t.equal(full.code, 0, full.stderr)
    for (const service of ['redis', 'mysql', 'front', 'worker', 'gateway', 'redis-exporter', 'mysql-exporter', 'prometheus', 'grafana']) {
      t.match(full.stdout, new RegExp(`^  ${service}:$`, 'm'), `service ${service}`)
    }
  })

  t.test('has no default password or token: each secret must be set (${VAR:?why})', async (t) => {
    for (const name of Object.keys(REQUIRED)) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}(:?[-?])?([^}]*)\\}`, 'g'))]
      t.ok(uses.length > 0, `${name} is used`)
      for (const use of uses) t.match(use[0], new RegExp(`^\\$\\{${name}:\\?\\S.*\\}$`), `${use[0]} is required, with a reason`)
    }
    t.same(doc.services.mysql?.environment?.MYSQL_PASSWORD, '${MYSQL_PASSWORD:?set MYSQL_PASSWORD (URL-safe characters) in .env}')
    t.notMatch(text, /\$\{[A-Z_]*(PASSWORD|TOKEN|SECRET|API_KEY)[A-Z_]*:?-[^}]/, 'no secret has a non-empty default')
  })

  t.test('health-checks every service (docker-compose ps shows which one is unhealthy)', async (t) => {
    for (const [name, service] of Object.entries(doc.services)) {
      t.ok(Array.isArray(service.healthcheck?.test) && service.healthcheck.test.length > 1, `${name} has a health check`)
    }
    t.match(doc.services.worker?.healthcheck?.test?.join(' '), /readyz/, 'the worker is checked on its readiness')
    t.match(doc.services.gateway?.healthcheck?.test?.join(' '), /readyz/, 'the gateway is checked on its readiness')
  })

  t.test('publishes Prometheus and Grafana on 127.0.0.1 only', async (t) => {
    t.same(doc.services.prometheus?.ports, ['127.0.0.1:${PROMETHEUS_PORT:-9090}:9090'])
    t.same(doc.services.grafana?.ports, ['127.0.0.1:${GRAFANA_PORT:-3000}:3000'])
  })

  t.test('gives each app service exactly the variables its process reads', async (t) => {
    for (const name of Object.keys(ENTRIES) as ComposeProcess[]) {
      t.same(Object.keys(doc.services[name]?.environment ?? {}).sort(), processEnv(name), name)
    }
    t.ok(processEnv('worker').includes('DISCORD_TOKEN') && processEnv('worker').includes('LOG_DESTINATION_SERVER'), 'the worker posts deliveries')
    t.notOk(processEnv('front').includes('DISCORD_TOKEN'), 'the front never holds the bot token')
  })

  t.test('has no top-level name (docker-compose v1 rejects it)', async (t) => {
    t.notMatch(text, /^name:/m)
  })

  t.test('runs Redis with AOF and noeviction, and MySQL 8', async (t) => {
    t.match(text, /--appendonly\s*\n\s*- "yes"/)
    t.match(text, /--maxmemory-policy\s*\n\s*- noeviction/)
    t.match(text, /image: mysql:8/)
  })

  t.test('runs each process from the one image with its metrics port', async (t) => {
    t.match(text, /command: \["front"\]/)
    t.match(text, /command: \["worker"\]/)
    t.match(text, /command: \["gateway"\]/)
    const defaults = parseConfig({})
    t.ok(defaults.ok)
    if (!defaults.ok) return
    t.match(text, new RegExp(`METRICS_PORT: "${defaults.config.metricsPort}"`))
    t.match(text, new RegExp(`WORKER_METRICS_PORT: "${defaults.config.workerMetricsPort}"`))
    t.match(text, new RegExp(`GATEWAY_METRICS_PORT: "${defaults.config.gatewayMetricsPort}"`))
  })
})

t.test('src/lib/process-env.ts', async (t) => {
  t.test("each process's list is what the code reachable from its entry point reads", async (t) => {
    for (const [name, entry] of Object.entries(ENTRIES) as Array<[ComposeProcess, string]>) {
      t.same([...PROCESS_CONFIG[name]].sort(), configReads(ROOT, entry), `${name} (${entry})`)
    }
  })

  t.test('CONFIG_ENV names every variable of config.ts and each field its sources', async (t) => {
    const source = await readFile(join(ROOT, 'src/config.ts'), 'utf8')
    const variables = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]*): v\.optional\(/gm)].map((m) => m[1]!).sort()
    t.same([...new Set(Object.values(CONFIG_ENV).flat())].sort(), variables, 'the same variables')
    const body = source.slice(source.indexOf('config: Object.freeze({'))
    for (const [field, names] of Object.entries(CONFIG_ENV)) {
      const line = new RegExp(`^ +${field}: (.*)$`, 'm').exec(body)?.[1]
      t.ok(line !== undefined, `${field} is built in parseConfig`)
      // A field made from a local (shardIds) takes that local's variables too.
      const locals = [...(line ?? '').matchAll(/\b([a-z]\w*)\b/g)].map((m) => new RegExp(`const ${m[1]} = (.*)$`, 'm').exec(source)?.[1] ?? '')
      const read = new Set([line ?? '', ...locals].flatMap((text) => [...text.matchAll(/\bo\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)))
      t.ok([...read].every((name) => names.includes(name)), `${field}: ${[...read].join(', ')} within ${names.join(', ')}`)
    }
  })
})

t.test('prometheus/prometheus.yml', async (t) => {
  const text = await readFile(join(ROOT, 'prometheus/prometheus.yml'), 'utf8')

  t.test('scrapes front, worker and gateway on their default metrics ports', async (t) => {
    t.match(text, /job_name: front\s*\n\s*static_configs:\s*\n\s*- targets: \['front:9464'\]/)
    t.match(text, /job_name: worker\s*\n\s*static_configs:\s*\n\s*- targets: \['worker:9465'\]/)
    t.match(text, /job_name: gateway\s*\n\s*static_configs:\s*\n\s*- targets: \['gateway:9466'\]/)
  })

  t.test('is valid for promtool check config', { skip: await skipUnlessTool('promtool', 'prometheus') }, async (t) => {
    const r = await run((await which('promtool')) ?? 'promtool', ['check', 'config', 'prometheus/prometheus.yml'], ROOT)
    t.equal(r.code, 0, `${r.stdout}${r.stderr}`)
  })
})

t.test('Dockerfile', async (t) => {
  const text = await readFile(join(ROOT, 'Dockerfile'), 'utf8')
  t.test('builds in stages and runs the CLI on a glibc slim image', async (t) => {
    t.match(text, /^FROM node:20-bookworm AS build$/m)
    t.match(text, /npm prune --omit=dev/, 'production dependencies: the build stage\'s patched tree, pruned')
  })
  t.test('applies patches/ (hyper-express) with npm ci in the build stage', async (t) => {
    t.match(text, /COPY patches \.\/patches\nRUN npm ci --no-audit --no-fund/)
    t.match(text, /^FROM node:20-bookworm-slim$/m)
    t.match(text, /ENTRYPOINT \["node", "dist\/src\/cli\.js"\]/)
  })
  t.test('runs in production mode, so serve never falls back to the sandbox', async (t) => {
    t.match(text, /^ENV NODE_ENV=production$/m)
  })
})
