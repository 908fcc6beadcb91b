import t from 'tap'
import { decodeSubscription, subscriptionField } from '../../../src/redis/model/push-subscription.js'

t.test('stored subscriptions', async (t) => {
  t.equal(subscriptionField('abcdefghijkl', 'job|with|bars'), 'abcdefghijkl|job|with|bars')
  t.same(decodeSubscription('abcdefghijkl|job|with|bars', '1700000000000|AB12,CD34'), {
    keyId: 'abcdefghijkl',
    serverId: 'job|with|bars',
    expiresAtMs: 1700000000000,
    codes: ['AB12', 'CD34'],
  })
  t.same(decodeSubscription('bootstrap|s', '5|')?.codes, [])
  for (const [field, value] of [
    ['nobar', '5|AB12'],
    ['|s', '5|AB12'],
    ['k|s', 'AB12'],
    ['k|s', 'x|AB12'],
    ['k|s', '5|ab12'],
    ['k|s', '5|AB12,,CD34'],
  ]) {
    t.equal(decodeSubscription(field!, value!), null, `${field} ${value}`)
  }
})
