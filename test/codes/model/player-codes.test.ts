import t from 'tap'
import { playerCodes, playerCodeStatus, readPlatformUserId } from '../../../src/codes/model/player-codes.js'

t.test("a code's status as a returning player's game sees it", async (t) => {
  t.equal(playerCodeStatus({ state: 'active', paused: false }), 'bound')
  t.equal(playerCodeStatus({ state: 'active', paused: true }), 'paused')
  t.equal(playerCodeStatus({ state: 'banned', paused: true }), 'banned', 'a ban outranks a pause')
  t.equal(playerCodeStatus({ state: 'invalidated', paused: false }), 'invalidated')
  t.equal(playerCodeStatus({ state: 'revoked', paused: false }), null)
})

t.test('the answer keeps the order given and leaves revoked codes out', async (t) => {
  t.same(
    playerCodes([
      { code: 'AB12', state: 'active', paused: false, platformUsername: 'Builderman' },
      { code: 'CD34', state: 'revoked', paused: false, platformUsername: 'Builderman' },
      { code: 'EF56', state: 'banned', paused: false, platformUsername: null },
    ]),
    [
      { code: 'AB12', status: 'bound', platform_username: 'Builderman' },
      { code: 'EF56', status: 'banned', platform_username: null },
    ],
  )
  t.same(playerCodes([]), [])
})

t.test('platform user ids in a path', async (t) => {
  t.equal(readPlatformUserId('156'), 156)
  t.equal(readPlatformUserId('9007199254740991'), 9007199254740991)
  for (const raw of ['', '0', '0156', '-1', '1.5', '1e3', '%31', ' 1', '9007199254740993', '12345678901234567', 'abc', '١٢٣']) {
    t.equal(readPlatformUserId(raw), null, JSON.stringify(raw))
  }
})
