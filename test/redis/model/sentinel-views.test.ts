/** The choice of the Sentinel to ask first (src/redis/model/sentinel-views.ts): the newest view wins. */
import t from 'tap'
import { newestView, readSentinelMaster, type SentinelView } from '../../../src/redis/model/sentinel-views.js'

const at = (port: number) => ({ host: '10.77.0.2', port })
const view = (port: number, primary: string, epoch: number): SentinelView => ({ sentinel: at(port), primary, epoch })

t.test('a SENTINEL MASTER reply is read into the primary and its epoch', async (t) => {
  const reply = ['name', 'presence', 'ip', '10.77.0.23', 'port', '6379', 'runid', 'abc', 'flags', 'master', 'config-epoch', '3', 'num-slaves', '2']
  t.strictSame(readSentinelMaster(at(26379), reply), { sentinel: at(26379), primary: '10.77.0.23:6379', epoch: 3 })
  t.equal(readSentinelMaster(at(26379), null), null, 'no master of that name')
  t.equal(readSentinelMaster(at(26379), ['name', 'presence', 'ip', '10.77.0.23']), null, 'no port or epoch')
  t.equal(readSentinelMaster(at(26379), ['ip', 'a', 'port', '1', 'config-epoch', 'x']), null, 'an epoch that is not a number')
})

t.test('the minority Sentinel of a partition loses to the ones that failed over', async (t) => {
  // data-a's Sentinel, cut off with the old primary, answers first and still names it under epoch 1.
  const views = [view(1, '10.77.0.21:6379', 1), view(2, '10.77.0.23:6379', 2), view(3, '10.77.0.23:6379', 2)]
  t.same(newestView(views)?.sentinel, at(2))
  t.same(newestView([view(1, '10.77.0.21:6379', 1), view(3, '10.77.0.23:6379', 2)])?.primary, '10.77.0.23:6379', 'one newer view is enough')
})

t.test('among the newest views, the primary most of them name, then the first to answer', async (t) => {
  t.same(newestView([view(1, 'a:1', 4), view(2, 'b:1', 4), view(3, 'b:1', 4)])?.sentinel, at(2))
  t.same(newestView([view(1, 'a:1', 4), view(2, 'a:1', 4), view(3, 'a:1', 4)])?.sentinel, at(1))
  t.equal(newestView([]), null, 'nobody answered: ioredis goes in its own order')
})
