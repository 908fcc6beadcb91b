/**
 * docker-compose.replicated.yml (issue 22): on top of docker-compose.yml it is valid, refuses to start without the
 * Redis secrets, runs the primary with min-replicas-to-write 1, a replica of it and three Sentinels, and gives every
 * app process a configuration that parses to Sentinel (REDIS_URL emptied, so nothing is ambiguous), with writes
 * confirmed by one replica on the front and the gateway.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { parseConfig } from '../src/config.js'
import { run, skipUnlessTool, which } from './helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BASE = { MYSQL_PASSWORD: 'pw-for-test', MYSQL_ROOT_PASSWORD: 'root-pw-for-test', GRAFANA_ADMIN_PASSWORD: 'grafana-pw-for-test', DISCORD_TOKEN: 'token-for-test' }
const REDIS_SECRETS = { REDIS_PASSWORD: 'redis-pw-for-test', REDIS_SENTINEL_PASSWORD: 'sentinel-pw-for-test' }
const FILES = ['-f', join(ROOT, 'docker-compose.yml'), '-f', join(ROOT, 'docker-compose.replicated.yml')]

interface Service {
  command?: string[]
  environment?: Record<string, string | null>
}

t.test('docker-compose.replicated.yml', { skip: await skipUnlessTool('docker-compose', 'docker-compose') }, async (t) => {
  const compose = (await which('docker-compose')) ?? 'docker-compose'

  t.test('refuses to start without each Redis secret', async (t) => {
    for (const missing of Object.keys(REDIS_SECRETS)) {
      const r = await run(compose, [...FILES, 'config', '-q'], ROOT, { ...BASE, ...REDIS_SECRETS, [missing]: '' })
      t.not(r.code, 0, `without ${missing}`)
      t.match(r.stderr, new RegExp(missing), `names ${missing}`)
    }
  })

  const full = await run(compose, [...FILES, 'config'], ROOT, { ...BASE, ...REDIS_SECRETS })
  t.equal(full.code, 0, full.stderr)
  const services = (parse(full.stdout) as { services: Record<string, Service> }).services

  t.test('runs a primary that refuses writes without a replica in sync, its replica, and three Sentinels', async (t) => {
    const primary = services.redis?.command?.join(' ') ?? ''
    t.match(primary, /--min-replicas-to-write 1\b/)
    t.match(primary, /--min-replicas-max-lag 10\b/)
    t.match(primary, /--requirepass redis-pw-for-test/)
    t.match(primary, /--maxmemory-policy noeviction/)
    t.match(services['redis-replica']?.command?.join(' ') ?? '', /--replicaof redis 6379/)
    for (const n of [1, 2, 3]) {
      const sentinel = services[`sentinel-${n}`]
      t.match(sentinel?.command?.join(' ') ?? '', /--sentinel/, `sentinel-${n} runs as a Sentinel`)
      t.match(sentinel?.command?.join(' ') ?? '', /sentinel monitor presence redis 6379 2/, `sentinel-${n} watches the primary, quorum 2`)
    }
  })

  t.test('every app process parses its environment to the Sentinels, without ambiguity', async (t) => {
    for (const name of ['front', 'worker', 'gateway']) {
      const env = Object.fromEntries(Object.entries(services[name]?.environment ?? {}).map(([k, v]) => [k, v ?? '']))
      const parsed = parseConfig({ ...env, DISCORD_TOKEN: 'token-for-test' })
      t.ok(parsed.ok, `${name}: ${parsed.ok ? '' : parsed.problems.join('; ')}`)
      if (!parsed.ok) continue
      t.same(parsed.config.redis, {
        kind: 'sentinel',
        sentinels: [1, 2, 3].map((n) => ({ host: `sentinel-${n}`, port: 26379 })),
        name: 'presence',
        password: 'redis-pw-for-test',
        sentinelPassword: 'sentinel-pw-for-test',
      }, name)
      if (name !== 'worker') t.equal(parsed.config.redisWriteReplicas, 1, `${name} waits for one replica`)
    }
  })
})
