/**
 * The Grafana dashboards: every expression parses and names only metrics the service (or an exporter compose runs)
 * exports; every panel goes through the `datasource` and `instance` variables; every stat has thresholds and colours;
 * a row per part plus Redis and MySQL, and a panel with the alerts' state.
 */
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
import { EXPORTER_METRIC_NAMES, metricNamesOf, PENDING_METRICS, PROMETHEUS_SERIES } from '../helpers/promql.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DASHBOARDS = join(ROOT, 'grafana/dashboards')

/**
 * Grafana's built-in interval variables, replaced by a plain duration so promtool can parse the expression, and the
 * dashboard's `instance` variable (a regex of the instances chosen; `.*` for All).
 */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $__range: '1h', $instance: '.*' }

interface Panel {
  type: string
  title: string
  datasource?: { type?: string; uid?: string }
  targets?: Array<{ expr?: string; datasource?: { uid?: string } }>
  fieldConfig?: { defaults?: { color?: { mode?: string }; thresholds?: { steps?: Array<{ color?: string; value: number | null }> } } }
  options?: { colorMode?: string }
}

interface Dashboard {
  templating: { list: Array<{ name: string; type: string; query?: unknown; current?: { value?: unknown }; datasource?: { uid?: string } }> }
  panels: Panel[]
}

async function loadDashboards(): Promise<Array<{ file: string; dashboard: Dashboard }>> {
  const files = (await readdir(DASHBOARDS)).filter((f) => f.endsWith('.json'))
  return Promise.all(files.map(async (file) => ({ file, dashboard: JSON.parse(await readFile(join(DASHBOARDS, file), 'utf8')) as Dashboard })))
}

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
  return expr.replace(/\$\w+/g, (v) => GRAFANA_VARIABLES[v] ?? v)
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

  const dashboards = await loadDashboards()
  const panelsOf = (d: Dashboard) => d.panels.filter((p) => p.type !== 'row')

  t.test('every panel uses the datasource variable, whose default is the provisioned Prometheus', async (t) => {
    const provisioning = await readFile(join(ROOT, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')
    t.match(provisioning, /uid: prometheus\b/)
    t.match(provisioning, /url: http:\/\/prometheus:9090\b/)
    for (const { file, dashboard } of dashboards) {
      const variable = dashboard.templating.list.find((v) => v.name === 'datasource')
      t.equal(variable?.type, 'datasource', `${file}: a datasource variable`)
      t.equal(variable?.query, 'prometheus', `${file}: of Prometheus datasources`)
      t.equal(variable?.current?.value, 'prometheus', `${file}: defaulting to the provisioned uid`)
      const text = JSON.stringify(dashboard)
      const uids = new Set([...text.matchAll(/"datasource":\s*\{[^}]*"uid":\s*"([^"]+)"/g)].map((m) => m[1]))
      t.same([...uids], ['${datasource}'], `${file}: every datasource reference is the variable`)
      for (const panel of panelsOf(dashboard)) {
        t.equal(panel.datasource?.uid, '${datasource}', `${file}: ${panel.title}`)
        for (const target of panel.targets ?? []) t.equal(target.datasource?.uid, '${datasource}', `${file}: ${panel.title} target`)
      }
    }
  })

  t.test('every panel filters on the instance variable', async (t) => {
    for (const { file, dashboard } of dashboards) {
      const variable = dashboard.templating.list.find((v) => v.name === 'instance')
      t.equal(variable?.type, 'query', `${file}: an instance variable`)
      t.match(JSON.stringify(variable?.query), /label_values\(up\{[^}]*\}, instance\)/, `${file}: listing the scraped instances`)
      t.equal(variable?.datasource?.uid, '${datasource}')
      for (const panel of panelsOf(dashboard)) {
        t.ok((panel.targets ?? []).length > 0, `${file}: ${panel.title} has a query`)
        for (const target of panel.targets ?? []) {
          // Every selector of the expression carries the filter (ALERTS also keeps alerts without an instance label).
          t.match(target.expr, /instance=~"\$instance\|?"/, `${file}: ${panel.title}: ${target.expr}`)
          const bare = metricNamesOf(target.expr ?? '').filter((name) => !new RegExp(`${name}\\{[^}]*instance=~"\\$instance`).test(target.expr ?? ''))
          t.same(bare, [], `${file}: ${panel.title}: every metric selected with the instance filter`)
        }
      }
    }
  })

  t.test('every stat panel has thresholds and colours', async (t) => {
    let stats = 0
    for (const { file, dashboard } of dashboards) {
      for (const panel of panelsOf(dashboard).filter((p) => p.type === 'stat')) {
        stats++
        const defaults = panel.fieldConfig?.defaults
        t.equal(defaults?.color?.mode, 'thresholds', `${file}: ${panel.title} is coloured by its thresholds`)
        const steps = defaults?.thresholds?.steps ?? []
        t.ok(steps.length >= 2, `${file}: ${panel.title} has thresholds`)
        t.equal(steps[0]?.value, null, `${file}: ${panel.title}: the first step is the base`)
        t.ok(steps.every((step) => typeof step.color === 'string' && step.color !== ''), `${file}: ${panel.title}: every step has a colour`)
        t.ok(steps.slice(1).every((step, i) => typeof step.value === 'number' && (i === 0 || step.value > (steps[i]!.value ?? -Infinity))), `${file}: ${panel.title}: steps ascend`)
        t.not(panel.options?.colorMode, 'none', `${file}: ${panel.title} shows its colour`)
      }
    }
    t.ok(stats >= 10, `stat panels (${stats})`)
  })

  t.test('has a row per part, Redis and MySQL, and the alerts state', async (t) => {
    const { dashboard } = dashboards.find((d) => d.file === 'presence-link-overview.json')!
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title)
    for (const part of [/^Front/, /^Worker/, /^Gateway/, /^Redis/, /^MySQL/]) t.ok(rows.some((r) => part.test(r)), `a row ${part}`)
    const exprs = panelsOf(dashboard).flatMap((p) => (p.targets ?? []).map((target) => target.expr ?? ''))
    t.ok(exprs.some((e) => /\bALERTS\{/.test(e)), 'a panel of the alerts (ALERTS)')
    t.ok(exprs.some((e) => /\bredis_up\{/.test(e)) && exprs.some((e) => /\bmysql_up\{/.test(e)), 'Redis and MySQL up')
  })

  t.test('only Grafana interval variables and the instance variable are used', async (t) => {
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
    await startConsumers(stack.ctx, ['bind', 'log', 'push'], workerRegistry)
    const front = await startMetricsServer(stack.ctx, frontRegistry, 0)
    const worker = await startMetricsServer(stack.ctx, workerRegistry, 0)
    await getText(`${stack.api}/callbacks/ABCD`)
    await postJson(`${stack.api}/log/server`, { event_type: 'boot', description: 'dashboard test' }, `Bearer ${stack.apiKey}`)

    const exported = new Set([
      ...exportedNames(await scrape(`http://127.0.0.1:${front.port}/metrics`)),
      ...exportedNames(await scrape(`http://127.0.0.1:${worker.port}/metrics`)),
    ])
    // The gateway, the delivery consumer, the front's cluster primary, the log pruner and the entry points' readiness
    // (metrics of `every` part) do not run here: their metrics count when the metric list defines them.
    const defined = ALL_METRICS.filter((m) => ['gateway', 'delivery', 'front-primary', 'retention', 'every'].includes(m.process)).flatMap(seriesNames)
    const known = new Set([...exported, ...defined, ...PROMETHEUS_SERIES, ...EXPORTER_METRIC_NAMES, ...PENDING_METRICS])
    const named = new Set(exprs.flatMap((e) => metricNamesOf(e.expr)))
    t.ok(named.size > 10)
    for (const name of named) t.ok(known.has(name), `${name} is exported`)
    t.ok(exported.has('presence_link_build_info'), 'every part exports its build info')
    t.notOk(exported.has('nodejs_active_handles_total'), 'no gauge with a counter suffix')

    t.test('and every metric of the list appears on a dashboard', async (t) => {
      for (const metric of ALL_METRICS) {
        t.ok(seriesNames(metric).some((s) => named.has(s)), metric.name)
      }
    })
  })
})
