/** INFO replication parsed for the replication metrics (issue 22): table cases, including odd and hostile text. */
import t from 'tap'
import { parseReplicationInfo, refusesWrites } from '../../../src/redis/model/replication-info.js'

const primary = (lines: string[]) => ['# Replication', 'role:master', `connected_slaves:${lines.length}`, ...lines, 'master_replid:abc123', 'master_repl_offset:42'].join('\r\n')

t.test('parses a primary with replicas', async (t) => {
  const cases: Array<[string, string, { onlineReplicas: number; maxLagSeconds: number | null; goodReplicas: number | null }]> = [
    ['no replica', primary([]), { onlineReplicas: 0, maxLagSeconds: null, goodReplicas: null }],
    ['one online, in step', primary(['slave0:ip=10.0.0.2,port=6379,state=online,offset=42,lag=0']), { onlineReplicas: 1, maxLagSeconds: 0, goodReplicas: null }],
    [
      'two online, the larger lag wins',
      primary(['slave0:ip=10.0.0.2,port=6379,state=online,offset=40,lag=1', 'slave1:ip=10.0.0.3,port=6379,state=online,offset=12,lag=7']),
      { onlineReplicas: 2, maxLagSeconds: 7, goodReplicas: null },
    ],
    ['one still syncing is not counted', primary(['slave0:ip=10.0.0.2,port=6379,state=wait_bgsave,offset=0,lag=0']), { onlineReplicas: 0, maxLagSeconds: null, goodReplicas: null }],
    ['min-replicas configured', primary(['slave0:ip=10.0.0.2,port=6379,state=online,offset=42,lag=12', 'min_slaves_good_slaves:0']), { onlineReplicas: 1, maxLagSeconds: 12, goodReplicas: 0 }],
    ['garbage lines are ignored', primary(['slave0:state=online,lag=x', 'no colon here', ':', 'slaveX:state=online,lag=3', 'min_slaves_good_slaves:-1']), { onlineReplicas: 1, maxLagSeconds: null, goodReplicas: null }],
  ]
  for (const [what, text, expected] of cases) {
    const info = parseReplicationInfo(text)
    t.same({ onlineReplicas: info.onlineReplicas, maxLagSeconds: info.maxLagSeconds, goodReplicas: info.goodReplicas }, expected, what)
    t.equal(info.role, 'master', what)
    t.equal(info.replid, 'abc123', what)
  }
})

t.test('a replica and empty text', async (t) => {
  t.equal(parseReplicationInfo('role:slave\nmaster_host:10.0.0.1\nmaster_replid:def').role, 'slave')
  t.same(parseReplicationInfo(''), { role: 'unknown', replid: '', onlineReplicas: 0, maxLagSeconds: null, goodReplicas: null })
})

t.test('refuses writes when fewer good replicas than min-replicas-to-write', async (t) => {
  const none = parseReplicationInfo(primary(['min_slaves_good_slaves:0']))
  const one = parseReplicationInfo(primary(['slave0:state=online,lag=0', 'min_slaves_good_slaves:1']))
  t.equal(refusesWrites(none, 1), true)
  t.equal(refusesWrites(one, 1), false)
  t.equal(refusesWrites(none, 0), false, 'off: never refuses')
  t.equal(refusesWrites(parseReplicationInfo(primary([])), 1), true, 'without the good count, online replicas count')
})
