/**
 * haproxy/compose.cfg, the balancer of docker-compose.yml, is haproxy/haproxy.cfg (the configuration the multi-host
 * scenarios test) with other servers: every directive of every section clients meet is the same, only the `server`
 * lines differ and the Galera section is left out. HAProxy accepts the file, and compose publishes the API through it
 * alone, with the front trusting the balancer's address.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { run, skipUnlessTool, which } from '../helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The directives of each section (comments and blank lines left out), by section header. */
function sections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue
    if (!line.startsWith(' ')) out.set(line.trim(), (current = []))
    else current?.push(line.trim())
  }
  return out
}

const withoutServers = (lines: readonly string[] = []) => lines.filter((l) => !l.startsWith('server '))
// The Galera section's external check needs these; compose runs one MySQL and no Galera section.
const withoutExternalCheck = (lines: readonly string[] = []) => lines.filter((l) => l !== 'external-check' && l !== 'insecure-fork-wanted')

t.test('haproxy/compose.cfg', async (t) => {
  const shipped = sections(await readFile(join(ROOT, 'haproxy/haproxy.cfg'), 'utf8'))
  const compose = sections(await readFile(join(ROOT, 'haproxy/compose.cfg'), 'utf8'))

  t.test("has the shipped configuration's directives, servers aside", async (t) => {
    t.same(compose.get('global'), withoutExternalCheck(shipped.get('global')), 'global')
    for (const name of ['defaults', 'frontend api', 'frontend stats']) t.same(compose.get(name), shipped.get(name), name)
    for (const name of ['backend fronts', 'backend streams']) t.same(withoutServers(compose.get(name)), withoutServers(shipped.get(name)), name)
    t.same([...compose.keys()].sort(), ['backend fronts', 'backend streams', 'defaults', 'frontend api', 'frontend stats', 'global', 'resolvers docker'])
  })

  t.test("sends everything to compose's front service, found again through Docker's DNS", async (t) => {
    t.same(compose.get('backend fronts')?.filter((l) => l.startsWith('server ')), ['server front front:8080 check resolvers docker init-addr last,libc,none'])
    t.same(compose.get('backend streams')?.filter((l) => l.startsWith('server ')), ['server front front:8080 track fronts/front resolvers docker init-addr last,libc,none'])
    t.same(compose.get('resolvers docker'), ['nameserver dns 127.0.0.11:53', 'hold valid 10s'])
  })

  t.test('is valid for haproxy -c', { skip: await skipUnlessTool('haproxy', 'haproxy') }, async (t) => {
    const r = await run((await which('haproxy')) ?? 'haproxy', ['-c', '-f', 'haproxy/compose.cfg'], ROOT)
    t.equal(r.code, 0, `${r.stdout}${r.stderr}`)
  })
})

t.test('docker-compose.yml publishes the API through the balancer only', async (t) => {
  interface Service {
    image?: string
    ports?: string[]
    volumes?: string[]
    environment?: Record<string, string>
    networks?: string[] | Record<string, { ipv4_address?: string } | null>
  }
  const doc = parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>
    networks?: Record<string, { ipam?: { config?: Array<{ subnet?: string }> } }>
  }
  const balancer = doc.services.balancer
  t.match(balancer?.image, /^haproxy:2\.6/)
  t.same(balancer?.ports, ['${API_PORT:-8080}:8080'])
  t.same(balancer?.volumes, ['./haproxy/compose.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro'])
  t.equal(doc.services.front?.ports, undefined, 'the front publishes no port')
  const address = (balancer?.networks as Record<string, { ipv4_address?: string }> | undefined)?.edge?.ipv4_address
  t.equal(address, '172.30.80.2')
  t.same(doc.networks?.edge?.ipam?.config, [{ subnet: '172.30.80.0/28' }])
  t.same(doc.services.front?.networks, ['default', 'edge'])
  t.equal(doc.services.front?.environment?.TRUST_PROXY, '${TRUST_PROXY:-172.30.80.2}', "the front believes the balancer's X-Forwarded-For, no one else's")
  for (const [name, service] of Object.entries(doc.services)) {
    if (name === 'balancer') continue
    for (const port of service.ports ?? []) t.match(port, /^127\.0\.0\.1:/, `${name} publishes on loopback only`)
  }
})
