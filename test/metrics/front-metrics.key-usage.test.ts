import { Registry } from 'prom-client'
import t from 'tap'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { MAX_KEY_LABELS } from '../../src/metrics/metric-names.js'

t.test('requests per key: key, route and status labels, a bounded number of key names', async (t) => {
  const registry = new Registry()
  const observer = createFrontObserver(registry)
  observer.keyRequest!('game-eu', 'log', 200)
  observer.keyRequest!('game-eu', 'log', 429)
  observer.keyRequest!('game-eu', 'players', 200)
  observer.keyRequest!('game-eu', '/api/v1/whatever', 200)
  observer.keyRequest!('game-eu', 'push', 999)
  const text = await registry.metrics()
  t.match(text, /presence_link_key_requests_total\{key="game-eu",route="log",status="200"\} 1/)
  t.match(text, /presence_link_key_requests_total\{key="game-eu",route="log",status="429"\} 1/)
  t.match(text, /presence_link_key_requests_total\{key="game-eu",route="players",status="200"\} 1/)
  t.match(text, /presence_link_key_requests_total\{key="game-eu",route="other",status="200"\} 1/, 'unknown routes are other')
  t.match(text, /presence_link_key_requests_total\{key="game-eu",route="push",status="other"\} 1/)
  for (let i = 0; i < MAX_KEY_LABELS + 10; i++) observer.keyRequest!(`key-${i}`, 'bind', 200)
  const names = new Set([...(await registry.metrics()).matchAll(/presence_link_key_requests_total\{key="([^"]+)"/g)].map((m) => m[1]))
  t.equal(names.size, MAX_KEY_LABELS + 1, `${MAX_KEY_LABELS} names and other`)
  t.ok(names.has('other'))
  t.ok(names.has('game-eu'), 'a name seen first keeps its label')
})
