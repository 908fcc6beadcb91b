/** The change feed's message format (src/redis/model/feed-message.ts): malformed messages read as "everything changed". */
import t from 'tap'
import { decodeFeedMessage, encodeFeedAll, encodeFeedCodes, encodeFeedKeys } from '../../../src/redis/model/feed-message.js'

t.test('round trips and safe readings', async (t) => {
  t.same(decodeFeedMessage(encodeFeedCodes(['AB12', 'ZZ99'], 1700000000123)), { all: false, codes: ['AB12', 'ZZ99'], sentAt: 1700000000123 })
  t.same(decodeFeedMessage(encodeFeedAll(5)), { all: true, sentAt: 5 })
  t.same(decodeFeedMessage(encodeFeedKeys(7)), { all: false, codes: [], sentAt: 7, keys: true }, 'a key change names no block')
  t.same(decodeFeedMessage('7|keys,AB12'), { all: true, sentAt: 7 }, 'only the word alone: anything else unknown drops everything')
  t.same(decodeFeedMessage('AB12'), { all: false, codes: ['AB12'], sentAt: Number.NaN }, 'no time: the whole message is the code list')
  t.same(decodeFeedMessage('12|ab12'), { all: true, sentAt: 12 }, 'a lowercase code is not a code: drop everything')
  t.same(decodeFeedMessage('12|AB12,'), { all: true, sentAt: 12 }, 'an empty item: drop everything')
  t.same(decodeFeedMessage('x|AB12'), { all: false, codes: ['AB12'], sentAt: Number.NaN }, 'a bad time only loses the lag figure')
  t.same(decodeFeedMessage(''), { all: true, sentAt: Number.NaN })
})
