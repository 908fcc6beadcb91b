/** docker-compose.yml and the Dockerfile agree with the configuration. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseConfig } from '../../src/config.js'
import { run, skipUnlessTool, which } from '../helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

t.test('docker-compose.yml', async (t) => {
  const text = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8')

  t.test('is valid for docker-compose config -q', { skip: await skipUnlessTool('docker-compose', 'docker-compose') }, async (t) => {
    const compose = (await which('docker-compose')) ?? 'docker-compose'
    const r = await run(compose, ['-f', 'docker-compose.yml', 'config', '-q'], ROOT)
    t.equal(r.code, 0, r.stderr)
    const full = await run(compose, ['-f', 'docker-compose.yml', 'config'], ROOT)
    t.equal(full.code, 0, full.stderr)
    for (const service of ['redis', 'mysql', 'front', 'worker', 'gateway', 'prometheus', 'grafana']) {
      t.match(full.stdout, new RegExp(`^  ${service}:$`, 'm'), `service ${service}`)
    }
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
    t.match(text, /npm ci --omit=dev/)
    t.match(text, /^FROM node:20-bookworm-slim$/m)
    t.match(text, /ENTRYPOINT \["node", "dist\/src\/cli\.js"\]/)
  })
})
