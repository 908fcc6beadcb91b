import t from 'tap'
import {
  experienceThrottlePerMinute,
  MAX_BACKOFF_MS,
  parseRetryAfter,
  retryDelayMs,
  topicBudgetPerMinute,
  universeBudgetPerMinute,
} from '../../../src/push/model/publish-budget.js'

t.test('the topic budget: (40 + 80 × servers) receives a minute, each message received by every server', async (t) => {
  const cases: Array<[number, number]> = [
    [1, 120],
    [2, 100],
    [3, 93],
    [40, 81],
    [41, 80],
    [200, 80],
    [100000, 80],
  ]
  for (const [servers, budget] of cases) {
    t.equal(topicBudgetPerMinute(servers), budget, `${servers} servers`)
    t.ok(budget * servers <= 40 + 80 * servers, 'inside the per-topic limit')
    t.ok(budget * servers <= 400 + 200 * servers, 'inside the whole game limit')
  }
  t.equal(topicBudgetPerMinute(0), 120, 'no fewer than one server counted')
  t.equal(topicBudgetPerMinute(2.7), 100)
})

t.test('the experience throttle: 50 + 5 × players a minute', async (t) => {
  t.equal(experienceThrottlePerMinute(0), 50)
  t.equal(experienceThrottlePerMinute(1), 55)
  t.equal(experienceThrottlePerMinute(10000), 50050)
  t.equal(experienceThrottlePerMinute(-3), 50)
})

t.test('a universe takes the smaller, and nothing without a live server', async (t) => {
  t.equal(universeBudgetPerMinute({ servers: 0, players: 0 }), 0)
  t.equal(universeBudgetPerMinute({ servers: 1, players: 1 }), 55, 'one player: the throttle binds')
  t.equal(universeBudgetPerMinute({ servers: 1, players: 20 }), 120)
  t.equal(universeBudgetPerMinute({ servers: 200, players: 10000 }), 80, '10,000 players in 200 servers')
})

t.test('retry delays', async (t) => {
  const now = Date.parse('2026-11-25T12:00:00Z')
  t.equal(retryDelayMs(1, null, now), 1000)
  t.equal(retryDelayMs(2, undefined, now), 2000)
  t.equal(retryDelayMs(3, null, now), 4000)
  t.equal(retryDelayMs(50, null, now), MAX_BACKOFF_MS, 'capped at a minute')
  t.equal(retryDelayMs(1, '3', now), 3000, 'Retry-After in seconds wins')
  t.equal(retryDelayMs(5, '0.5', now), 500)
  t.equal(retryDelayMs(1, 'Wed, 25 Nov 2026 12:00:07 GMT', now), 7000, 'an HTTP date')
  t.equal(retryDelayMs(1, '86400', now), MAX_BACKOFF_MS, 'a day is capped too')
  t.equal(retryDelayMs(2, 'soon', now), 2000, 'unreadable: backoff')
  t.equal(parseRetryAfter('', now), null)
  t.equal(parseRetryAfter('-1', now), null)
  t.equal(parseRetryAfter('Wed, 25 Nov 2026 11:00:00 GMT', now), 0, 'a date in the past: now')
})
