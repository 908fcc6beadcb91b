/**
 * Which Config fields the code reachable from an entry point reads, found by reading the source (no process runs):
 * every file reached through relative static or dynamic imports (type-only imports skipped), searched for
 * `config.field` (also `ctx.config.field`, `deps.config.field`) and `const { a, b } = ….config`. It over-approximates
 * (a field read on a path the process never takes still counts), which is the safe side for "pass every variable".
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const IMPORT = /(?:^|[^\w.])(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g
const FIELD = /(?<!['"])\bconfig\??\.([a-zA-Z]\w*)\b(?!['"])/g
const DESTRUCTURE = /\{([^{}]+)\}\s*=\s*(?:[\w.]+\.)?config\b/g

/** The source files reachable from `entry` (a path relative to `root`), relative paths, sorted. */
export function reachableFiles(root: string, entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(IMPORT)) {
      if (m[1] !== undefined) continue
      const spec = m[2] ?? m[3]
      if (spec === undefined || !spec.endsWith('.js')) continue
      visit(relative(root, join(root, dirname(file), spec.replace(/\.js$/, '.ts'))))
    }
  }
  visit(entry)
  return [...seen].sort()
}

/** The Config fields read by the files reachable from `entry`, sorted. */
export function configReads(root: string, entry: string): string[] {
  const fields = new Set<string>()
  for (const file of reachableFiles(root, entry)) {
    if (file === 'src/config.ts') continue
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(FIELD)) fields.add(m[1]!)
    for (const m of text.matchAll(DESTRUCTURE)) {
      for (const part of m[1]!.split(',')) {
        const name = part.split(':')[0]!.trim()
        if (/^[a-zA-Z]\w*$/.test(name)) fields.add(name)
      }
    }
  }
  return [...fields].sort()
}
