import t from 'tap'
import { createClientIpResolver, normalizeIp } from '../../src/http/client-ip.js'

t.test('without trusted proxies the socket address is the client, whatever the header says', async (t) => {
  const resolve = createClientIpResolver([])
  t.equal(resolve('10.0.0.5', '1.2.3.4'), '10.0.0.5')
  t.equal(resolve('::ffff:10.0.0.5', undefined), '10.0.0.5')
})

t.test('behind trusted proxies the nearest untrusted hop is the client', async (t) => {
  const resolve = createClientIpResolver(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'])
  const rows: Array<[string, string | undefined, string]> = [
    ['10.1.1.1', '203.0.113.5', '203.0.113.5'],
    ['10.1.1.1', '198.51.100.1, 203.0.113.5', '203.0.113.5'],
    ['10.1.1.1', '203.0.113.5, 10.2.2.2', '203.0.113.5'],
    ['10.1.1.1', '203.0.113.5, 192.0.2.7', '203.0.113.5'],
    ['10.1.1.1', undefined, '10.1.1.1'],
    ['10.1.1.1', 'garbage', '10.1.1.1'],
    ['10.1.1.1', '203.0.113.5, garbage', '10.1.1.1'],
    ['10.1.1.1', '10.3.3.3', '10.3.3.3'],
    ['203.0.113.99', '1.1.1.1', '203.0.113.99'],
    ['2001:db8::1', '2001:db9::5', '2001:db9::5'],
    ['::ffff:10.1.1.1', '::ffff:203.0.113.5', '203.0.113.5'],
  ]
  for (const [peer, xff, client] of rows) t.equal(resolve(peer, xff), client, `${peer} / ${xff}`)
})

t.test('IPv4-mapped addresses are normalized, others lowercased', async (t) => {
  t.equal(normalizeIp('::FFFF:127.0.0.1'), '127.0.0.1')
  t.equal(normalizeIp('2001:DB8::1'), '2001:db8::1')
})
