import t from 'tap'
import { clientKey, parseIpv6, trustProxyProblem } from '../../../src/http/model/client-key.js'
import { isUnknownView, unknownCodes } from '../../../src/codes/model/unknown-codes.js'

t.test('client keys', async (t) => {
  const rows: Array<[string, string]> = [
    ['203.0.113.5', '203.0.113.5'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::FFFF:c633:6407', '198.51.100.7'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['not an ip', 'not an ip'],
    ['', ''],
  ]
  for (const [ip, key] of rows) t.equal(clientKey(ip), key, JSON.stringify(ip))
})

t.test('IPv6 parsing refuses malformed text', async (t) => {
  for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', ':::', '12345::', '1:2:3:4:5:6:7', 'g::1', '::1.2.3.256', '1:2:3:4:5:6:7:1.2.3.4', 'x'.repeat(4000)]) {
    t.equal(parseIpv6(bad), undefined, bad.slice(0, 30))
  }
  t.same(parseIpv6('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8])
  t.same(parseIpv6('::'), [0, 0, 0, 0, 0, 0, 0, 0])
  t.same(parseIpv6('1:2:3:4:5:6:1.2.3.4'), [1, 2, 3, 4, 5, 6, 0x102, 0x304])
})

t.test('TRUST_PROXY ranges', async (t) => {
  for (const ok of ['10.0.0.0/8', '10.1.2.3', '10.1.2.3/32', '2001:db8::/32', '2001:db8::1', 'fd00::/48', '::ffff:10.0.0.0/104', '0.0.0.0/8']) {
    t.equal(trustProxyProblem(ok), null, ok)
  }
  const broad = [
    ['0.0.0.0/0', 4, 8],
    ['::/0', 6, 32],
    ['10.0.0.0/7', 4, 8],
    ['2001::/31', 6, 32],
    ['::ffff:0:0/96', 4, 8],
  ] as const
  for (const [entry, family, min] of broad) {
    t.equal(
      trustProxyProblem(entry),
      `${JSON.stringify(entry)} trusts too much of the Internet: every address in it could forge X-Forwarded-For and pick its own client address; list your proxies or a range of at most /${min} (IPv${family})`,
      entry,
    )
  }
  t.equal(trustProxyProblem('10.0.0.0/33'), '"10.0.0.0/33" is not an IP address or CIDR range')
  t.equal(trustProxyProblem('::/129'), '"::/129" is not an IP address or CIDR range')
  t.equal(trustProxyProblem('10.0.0.0/8/8'), '"10.0.0.0/8/8" is not an IP address or CIDR range')
  t.equal(trustProxyProblem('proxy.local'), '"proxy.local" is not an IP address or CIDR range')
  t.equal(trustProxyProblem('10.0.0.0/-1'), '"10.0.0.0/-1" is not an IP address or CIDR range')
})

t.test('unknown codes are not found and issued-but-unlinked; linked states never count', async (t) => {
  t.ok(isUnknownView({ kind: 'not_found' }))
  t.ok(isUnknownView({ kind: 'not_linked' }))
  for (const view of [
    { kind: 'active', username: 'A', activity: '' },
    { kind: 'banned', username: null },
    { kind: 'invalidated', username: 'A' },
    { kind: 'paused' },
  ] as const) {
    t.notOk(isUnknownView(view), view.kind)
  }
  t.same(unknownCodes(['AAAA', 'BBBB', 'CCCC'], [{ kind: 'not_found' }, { kind: 'paused' }, { kind: 'not_linked' }]), ['AAAA', 'CCCC'])
  t.same(unknownCodes([], []), [])
})
