/**
 * prometheus/alerts.yml: valid for promtool, loaded by the compose Prometheus, every alert documented (summary,
 * description, a runbook paragraph in docs/operations.md) and made to fire by a case of prometheus/alerts.test.yml
 * (`promtool test rules`), each case failing when its rule can no longer fire; every metric the rules name exists.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse, stringify } from 'yaml'
import { ALL_METRICS, DELIVERY_DESTINATIONS, DELIVERY_RESULTS, QUEUE_STATES, ROUTES, seriesNames } from '../../src/metrics/metric-names.js'
import { run, skipUnlessTool, which } from '../helpers/ops-tools.js'
import { EXPORTER_METRIC_NAMES, metricNamesOf, PROMETHEUS_SERIES } from '../helpers/promql.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const RULES = join(ROOT, 'prometheus/alerts.yml')
const RULE_TESTS = join(ROOT, 'prometheus/alerts.test.yml')

interface Rule {
  alert?: string
  record?: string
  expr: string
  for?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}

interface RuleFile {
  groups: Array<{ name: string; rules: Rule[] }>
}

interface RuleTests {
  rule_files: string[]
  tests: Array<{ name: string; alert_rule_test?: Array<{ alertname: string; eval_time: string; exp_alerts: unknown[] }>; promql_expr_test?: unknown[] }>
}

/** GitHub's anchor for a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')
}

/** Headings of a Markdown page with the text under each, by anchor. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>()
  const parts = markdown.split(/^(#{1,6} .*)$/m)
  for (let i = 1; i < parts.length; i += 2) out.set(anchorOf(parts[i]!.replace(/^#+ /, '')), parts[i + 1]!.trim())
  return out
}

/** Label matchers of every selector of `name` in `expr`: label, operator, value. */
function matchersOf(expr: string, name: string): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = []
  for (const m of expr.matchAll(new RegExp(`(?<![a-zA-Z0-9_:])${name}\\{([^}]*)\\}`, 'g'))) {
    for (const l of m[1]!.matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)) out.push([l[1]!, l[2]!, l[3]!])
  }
  return out
}

const rulesText = await readFile(RULES, 'utf8')
const rules = (parse(rulesText) as RuleFile).groups.flatMap((g) => g.rules)
const alerts = rules.filter((r): r is Rule & { alert: string } => r.alert !== undefined)
const ruleTests = parse(await readFile(RULE_TESTS, 'utf8')) as RuleTests
const promtoolSkip = await skipUnlessTool('promtool', 'prometheus')

t.test('alert rules', async (t) => {
  t.ok(alerts.length >= 15, `alerts (${alerts.length})`)

  t.test('promtool check rules accepts the file', { skip: promtoolSkip }, async (t) => {
    const r = await run((await which('promtool')) ?? 'promtool', ['check', 'rules', 'prometheus/alerts.yml'], ROOT)
    t.equal(r.code, 0, `${r.stdout}${r.stderr}`)
    t.match(r.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`))
  })

  t.test('promtool test rules passes every case', { skip: promtoolSkip }, async (t) => {
    const r = await run((await which('promtool')) ?? 'promtool', ['test', 'rules', 'prometheus/alerts.test.yml'], ROOT)
    t.equal(r.code, 0, `${r.stdout}${r.stderr}`)
    t.match(r.stdout, /SUCCESS/)
  })

  t.test('every alert has a unique name, a severity, a summary, a description and a runbook paragraph', async (t) => {
    const names = alerts.map((a) => a.alert)
    t.equal(new Set(names).size, names.length, 'names are unique')
    const operations = await readFile(join(ROOT, 'docs/operations.md'), 'utf8')
    const runbook = sections(operations)
    const table = runbook.get('alerts') ?? ''
    for (const a of alerts) {
      t.match(a.alert, /^PresenceLink[A-Z][A-Za-z]+$/, a.alert)
      t.ok(['critical', 'warning'].includes(a.labels?.severity ?? ''), `${a.alert}: severity critical or warning`)
      t.match(table, new RegExp(`^\\| \`${a.alert}\` \\| ${a.labels?.severity} \\| `, 'm'), `${a.alert}: a line of the "what fires when" table`)
      t.ok((a.annotations?.summary ?? '').length > 10, `${a.alert}: summary`)
      t.ok((a.annotations?.description ?? '').length > 30, `${a.alert}: description`)
      const link = /^docs\/operations\.md#([a-z0-9-]+)$/.exec(a.annotations?.runbook_url ?? '')
      t.ok(link !== null, `${a.alert}: runbook_url is docs/operations.md#anchor (${a.annotations?.runbook_url})`)
      // The paragraph is titled with the alert's name (a fast and a slow burn share one).
      t.equal(link?.[1], anchorOf(a.alert.replace(/(Fast|Slow)Burn$/, 'Burn')), `${a.alert}: the anchor is its name`)
      const paragraph = runbook.get(link?.[1] ?? '')
      t.ok(paragraph !== undefined && paragraph.length > 80, `${a.alert}: docs/operations.md has a runbook paragraph under #${link?.[1]}`)
    }
  })

  t.test('every alert is made to fire by a promtool test case', async (t) => {
    t.same(ruleTests.rule_files, ['alerts.yml'])
    const fired = new Set(ruleTests.tests.flatMap((c) => (c.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)))
    for (const a of alerts) t.ok(fired.has(a.alert), `${a.alert} fires in a case`)
  })

  t.test('a case fails once its rule can no longer fire, so each case tests its rule', { skip: promtoolSkip }, async (t) => {
    const promtool = (await which('promtool')) ?? 'promtool'
    const dir = await mkdtemp(join(tmpdir(), 'pl-alerts-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    for (const a of alerts) {
      const broken = parse(rulesText) as RuleFile
      for (const rule of broken.groups.flatMap((g) => g.rules)) if (rule.alert === a.alert) rule.expr = 'vector(1) == 2'
      await writeFile(join(dir, 'alerts.yml'), stringify(broken))
      // Only this alert's cases (the whole file takes seconds of CPU; once per alert would be minutes).
      const own = ruleTests.tests
        .filter((c) => (c.alert_rule_test ?? []).some((x) => x.alertname === a.alert))
        .map(({ promql_expr_test: _, ...c }) => ({ ...c, alert_rule_test: c.alert_rule_test!.filter((x) => x.alertname === a.alert) }))
      await writeFile(join(dir, 'alerts.test.yml'), stringify({ ...ruleTests, tests: own }))
      const r = await run(promtool, ['test', 'rules', 'alerts.test.yml'], dir)
      t.not(r.code, 0, `${a.alert} never firing fails the tests`)
      t.match(`${r.stdout}${r.stderr}`, new RegExp(`alertname: ${a.alert},`), `and the failure names ${a.alert}`)
    }
  })

  t.test('every metric the rules name exists, selected by its own labels and values', async (t) => {
    const recorded = new Set(rules.flatMap((r) => (r.record === undefined ? [] : [r.record])))
    const service = new Map(ALL_METRICS.flatMap((m) => seriesNames(m).map((s) => [s, m] as const)))
    const closed: Record<string, readonly string[]> = { route: ROUTES, state: QUEUE_STATES, destination: DELIVERY_DESTINATIONS, dependency: ['redis', 'mysql', 'discord'] }
    for (const rule of rules) {
      for (const name of metricNamesOf(rule.expr)) {
        t.ok(service.has(name) || recorded.has(name) || PROMETHEUS_SERIES.has(name) || EXPORTER_METRIC_NAMES.has(name), `${rule.alert ?? rule.record}: ${name} exists`)
        const spec = service.get(name)
        if (spec === undefined) continue
        for (const [label, op, value] of matchersOf(rule.expr, name)) {
          const allowed = [...spec.labels, 'job', 'instance', ...(name.endsWith('_bucket') ? ['le'] : [])]
          t.ok(allowed.includes(label), `${rule.alert ?? rule.record}: ${name} has the label ${label}`)
          const values = closed[label] ?? (label === 'result' && name === 'presence_link_deliveries_total' ? DELIVERY_RESULTS : undefined)
          if (values === undefined || (op !== '=' && op !== '=~')) continue
          for (const v of value.split('|')) t.ok(values.includes(v), `${rule.alert ?? rule.record}: ${label}="${v}" is a value ${name} takes`)
        }
      }
    }
  })

  t.test('the compose Prometheus loads the file', async (t) => {
    const config = parse(await readFile(join(ROOT, 'prometheus/prometheus.yml'), 'utf8')) as { rule_files?: string[]; scrape_configs: Array<{ job_name: string }> }
    t.same(config.rule_files, ['alerts.yml'], 'rule_files, relative to /etc/prometheus/prometheus.yml')
    const compose = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8')
    t.match(compose, /- \.\/prometheus\/alerts\.yml:\/etc\/prometheus\/alerts\.yml:ro/, 'mounted beside the configuration')
    const jobs = config.scrape_configs.map((s) => s.job_name)
    for (const job of ['front', 'worker', 'gateway', 'redis', 'mysql']) t.ok(jobs.includes(job), `the alerts' job ${job} is scraped`)
  })
})
