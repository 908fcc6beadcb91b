/** The Grafana dashboards and Prometheus rules use only metrics the service exports. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createFrontObserver } from '../../src/metrics/front-metrics.js'
import { ALL_METRICS, seriesNames } from '../../src/metrics/metric-names.js'
import { startMetricsServer } from '../../src/metrics/metrics-server.js'
import { createMetricsRegistry } from '../../src/metrics/registry.js'
import { startConsumers } from '../../src/runtime/consumers.js'
import { getText, postJson, startStack } from '../helpers/stack.js'
import { exportedNames, scrape } from '../helpers/prometheus-text.js'
import { run, skipUnlessTool, which } from '../helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DASHBOARDS = join(ROOT, 'grafana/dashboards')

/** Grafana's built-in interval variables, replaced by a plain duration so promtool can parse the expression. */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $__range: '1h' }

/** Series Prometheus itself adds to every target; dashboards may use them without the service exporting them. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added'])

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless', 'inf', 'nan'])

interface Expr {
  dashboard: string
  panel: string
  expr: string
}

function collectExprs(node: unknown, dashboard: string, panel: string, out: Expr[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectExprs(item, dashboard, panel, out)
    return
  }
  if (node === null || typeof node !== 'object') return
  const obj = node as Record<string, unknown>
  const title = typeof obj.title === 'string' ? obj.title : panel
  if (Array.isArray(obj.targets)) {
    for (const target of obj.targets as Array<Record<string, unknown>>) {
      if (typeof target.expr === 'string') out.push({ dashboard, panel: title, expr: target.expr })
    }
  }
  for (const [key, value] of Object.entries(obj)) if (key !== 'targets') collectExprs(value, dashboard, title, out)
}

/** The expression with Grafana's variables replaced. */
function concrete(expr: string): string {
  return expr.replace(/\$__\w+/g, (v) => GRAFANA_VARIABLES[v] ?? v)
}

/** Metric names an expression selects (label names, functions, keywords, strings and durations removed). */
function metricNamesOf(expr: string): string[] {
  let s = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  s = s.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ')
  s = s.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names = new Set<string>()
  for (const m of s.matchAll(/(?<![0-9.a-zA-Z_:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = s.slice(m.index! + m[0].length).trimStart()
    if (after.startsWith('(') || PROMQL_WORDS.has(m[0].toLowerCase())) continue
    names.add(m[0])
  }
  return [...names]
}

async function loadExprs(): Promise<Expr[]> {
  const exprs: Expr[] = []
  for (const file of (await readdir(DASHBOARDS)).filter((f) => f.endsWith('.json'))) {
    collectExprs(JSON.parse(await readFile(join(DASHBOARDS, file), 'utf8')), file, '', exprs)
  }
  return exprs
}

/** Runs `promtool check rules` on the expressions as recording rules; resolves with its exit code and output. */
async function promtoolParses(exprs: readonly string[]): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pl-promql-'))
  try {
    // JSON is YAML, so the rules file needs no YAML writer.
    const rules = { groups: [{ name: 'dashboards', rules: exprs.map((expr, i) => ({ record: `dashboard:expr_${i}`, expr })) }] }
    await writeFile(join(dir, 'rules.yml'), JSON.stringify(rules, null, 1))
    const promtool = (await which('promtool')) ?? 'promtool'
    const r = await run(promtool, ['check', 'rules', 'rules.yml'], dir)
    return { code: r.code, output: `${r.stdout}${r.stderr}` }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

t.test('dashboards', async (t) => {
  const exprs = await loadExprs()
  t.ok(exprs.length >= 20, `the dashboards hold PromQL expressions (${exprs.length})`)

  t.test('every panel uses the provisioned Prometheus datasource', async (t) => {
    const provisioning = await readFile(join(ROOT, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')
    t.match(provisioning, /uid: prometheus\b/)
    t.match(provisioning, /url: http:\/\/prometheus:9090\b/)
    for (const file of (await readdir(DASHBOARDS)).filter((f) => f.endsWith('.json'))) {
      const text = await readFile(join(DASHBOARDS, file), 'utf8')
      const uids = new Set([...text.matchAll(/"datasource":\s*\{[^}]*"uid":\s*"([^"]+)"/g)].map((m) => m[1]))
      t.same([...uids], ['prometheus'], file)
    }
  })

  t.test('only Grafana interval variables are used', async (t) => {
    for (const e of exprs) t.notMatch(concrete(e.expr), /\$/, `${e.panel}: ${e.expr}`)
  })

  t.test('every PromQL expression parses (promtool check rules)', { skip: await skipUnlessTool('promtool', 'prometheus') }, async (t) => {
    const ok = await promtoolParses(exprs.map((e) => concrete(e.expr)))
    t.equal(ok.code, 0, ok.output)
    t.match(ok.output, /SUCCESS: \d+ rules found/)
    const broken = await promtoolParses(['sum by (route (rate(presence_link_http_requests_total[5m]))'])
    t.not(broken.code, 0, 'a broken expression is rejected, so the check above means something')
  })

  t.test('metric names are read from expressions', async (t) => {
    t.same(
      metricNamesOf('histogram_quantile(0.99, sum by (route, le) (rate(a_bucket{route=~"x|y"}[$__rate_interval]))) / on(job) b offset 5m > bool 1e3'),
      ['a_bucket', 'b'],
    )
  })

  t.test('every metric the dashboards name is exported by the service', async (t) => {
    const frontRegistry = createMetricsRegistry()
    const workerRegistry = createMetricsRegistry()
    const stack = await startStack(t, { observer: createFrontObserver(frontRegistry), consumers: [] })
    await startConsumers(stack.ctx, ['bind', 'log'], workerRegistry)
    const front = await startMetricsServer(stack.ctx, frontRegistry, 0)
    const worker = await startMetricsServer(stack.ctx, workerRegistry, 0)
    await getText(`${stack.api}/callbacks/ABCD`)
    await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'dashboard test' }, `Bearer ${stack.apiKey}`)

    const exported = new Set([
      ...exportedNames(await scrape(`http://127.0.0.1:${front.port}/metrics`)),
      ...exportedNames(await scrape(`http://127.0.0.1:${worker.port}/metrics`)),
    ])
    // The gateway, the delivery consumer and the entry points' readiness (metrics of `every` part) do not run here:
    // their metrics count when the metric list defines them.
    const defined = ALL_METRICS.filter((m) => m.process === 'gateway' || m.process === 'delivery' || m.process === 'every').flatMap(seriesNames)
    const known = new Set([...exported, ...defined, ...PROMETHEUS_SERIES])
    const named = new Set(exprs.flatMap((e) => metricNamesOf(e.expr)))
    t.ok(named.size > 10)
    for (const name of named) t.ok(known.has(name), `${name} is exported`)

    t.test('and every metric of the list appears on a dashboard', async (t) => {
      for (const metric of ALL_METRICS) {
        t.ok(seriesNames(metric).some((s) => named.has(s)), metric.name)
      }
    })
  })
})
