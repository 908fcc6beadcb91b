/** Reads the Prometheus text format for tests: samples with their labels, and the declared metric types. */

/** One sample line. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** A parsed scrape. */
export interface Scrape {
  samples: Sample[]
  /** `# TYPE` lines: metric name to type. */
  types: Map<string, string>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses a scrape body. */
export function parseScrape(text: string): Scrape {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ')
      if (name !== undefined && type !== undefined) types.set(name, type)
      continue
    }
    if (line === '' || line.startsWith('#')) continue
    const m = SAMPLE.exec(line)
    if (m === null) throw new Error(`unparsable sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    samples.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return { samples, types }
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none, throws when several. */
export function sampleValue(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scrape.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

/** Every sample name a scrape exports, from its TYPE lines (a histogram gives `_bucket`, `_sum`, `_count`). */
export function exportedNames(scrape: Scrape): Set<string> {
  const names = new Set<string>()
  for (const [name, type] of scrape.types) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`)
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`)
    else names.add(name)
  }
  for (const s of scrape.samples) names.add(s.name)
  return names
}

/** GETs a metrics endpoint and parses it. */
export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`scrape of ${url} answered ${res.status}`)
  return parseScrape(await res.text())
}
