import t from 'tap'
import { ALL_METRICS, labelValue, METRIC_PREFIX, ROUTES, seriesNames, shardLabel, statusLabel } from '../../src/metrics/metric-names.js'

t.test('metric definitions', async (t) => {
  t.test('every name has the prefix, is a valid Prometheus name and is unique', async (t) => {
    const names = ALL_METRICS.map((m) => m.name)
    t.equal(new Set(names).size, names.length)
    for (const name of names) {
      t.ok(name.startsWith(METRIC_PREFIX), name)
      t.match(name, /^[a-z_][a-z0-9_]*$/)
    }
  })

  t.test('counters end in _total, histograms have buckets and a base unit, gauges do not end in _total', async (t) => {
    for (const m of ALL_METRICS) {
      if (m.kind === 'counter') t.match(m.name, /_total$/, m.name)
      else t.notMatch(m.name, /_total$/, m.name)
      if (m.kind === 'histogram') {
        t.ok(m.buckets !== undefined && m.buckets.length > 3, `${m.name} has buckets`)
        t.same([...m.buckets!], [...m.buckets!].sort((a, b) => a - b), `${m.name} buckets ascend`)
      }
      if (/_seconds$|_ms$/.test(m.name)) t.match(m.name, /_seconds$/, `${m.name} uses seconds`)
    }
  })

  t.test('no metric has a label that could carry an IP, a code, a user id or a path', async (t) => {
    for (const m of ALL_METRICS) {
      for (const label of m.labels) t.notMatch(label, /ip|code|user|path|url|id$/i, `${m.name} {${label}}`)
    }
  })

  t.test('histograms produce _bucket, _sum and _count series', async (t) => {
    t.same(seriesNames({ name: 'x', kind: 'histogram' }), ['x_bucket', 'x_sum', 'x_count'])
    t.same(seriesNames({ name: 'y_total', kind: 'counter' }), ['y_total'])
  })
})

t.test('label values', async (t) => {
  const cases: Array<[string, string]> = [
    ['callbacks', 'callbacks'],
    ['not_found', 'not_found'],
    ['Callbacks', 'other'],
    ['callbacks\n', 'other'],
    ['/api/v1/callbacks/ABCD', 'other'],
    ['10.0.0.1', 'other'],
    ['', 'other'],
    ['x'.repeat(4000), 'other'],
    ['🎮', 'other'],
  ]
  for (const [input, expected] of cases) t.equal(labelValue(ROUTES, input), expected, JSON.stringify(input.slice(0, 30)))

  const statuses: Array<[number, string]> = [
    [200, '200'],
    [429, '429'],
    [599, '599'],
    [99, 'other'],
    [600, 'other'],
    [200.5, 'other'],
    [Number.NaN, 'other'],
  ]
  for (const [input, expected] of statuses) t.equal(statusLabel(input), expected, String(input))

  t.equal(shardLabel(0), '0')
  t.equal(shardLabel(15), '15')
  t.equal(shardLabel(-1), 'other')
  t.equal(shardLabel(1.5), 'other')
})
