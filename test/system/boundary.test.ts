/**
 * The house's boundaries, checked on every source file under src/ and workers/: only the infrastructure rooms
 * (mysql/, redis/, queue/, runtime/) and the entry points import the database, Redis and queue clients; every
 * `model/` folder is pure: it imports only other `model/` files and valibot (no I/O, no clock or randomness from
 * outside, nothing of the features around it); only the entry points, the CLI and runtime/ itself import runtime/
 * (the wiring sits on top: a feature takes narrow shapes, never the process), and runtime/ stays within its line
 * budget; no files import each other in a circle; every file opens with a header comment.
 */
import { readFileSync } from 'node:fs'
import { join, normalize, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { sourceFiles } from '../helpers/source-files.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The clients only the infrastructure rooms may import (type-only imports included). */
const CLIENTS = ['kysely', 'mysql2', 'ioredis', 'bullmq']

/** Rooms and files allowed to import those clients. */
const CLIENT_ROOMS = ['src/mysql/', 'src/redis/', 'src/queue/', 'src/runtime/']
const ENTRY_POINTS = ['src/serve.ts', 'src/front.ts', 'src/gateway.ts', 'src/sandbox.ts', 'src/cli.ts', 'workers/worker.ts']

/** Rooms allowed to import runtime/ (the wiring), besides the entry points. */
const RUNTIME_USERS = ['src/runtime/', 'src/cli/']

/**
 * Lines src/runtime/ may hold (issue 33): opening clients and handing features their adapters fits; a rule or a
 * message found there belongs to its feature's room.
 */
const RUNTIME_LINE_BUDGET = 600

/** The only packages a `model/` file may import: the rest is I/O, a client or another room's concern. */
const PURE_PACKAGES = ['valibot']

/** True for a file of a pure room: any folder named `model`. */
export function isModel(path: string): boolean {
  return path.split('/').slice(0, -1).includes('model')
}

const SPECIFIER = /\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g

/** The module specifiers a source text imports or re-exports (static, side-effect and dynamic imports). */
export function specifiersOf(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => m[1]!)
}

function packageMatches(specifier: string, name: string): boolean {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier
  return name.endsWith('/') ? bare.startsWith(name) : bare === name || bare.startsWith(`${name}/`)
}

const within = (path: string, rooms: readonly string[]) => rooms.some((room) => (room.endsWith('/') ? path.startsWith(room) : path === room))

/** Every boundary problem of one file; `path` is repository-relative with forward slashes. */
export function boundaryProblems(path: string, text: string): string[] {
  const problems: string[] = []
  if (!/^(?:#![^\n]*\n)?\s*(?:\/\*|\/\/)/.test(text)) problems.push(`${path}: does not open with a header comment`)
  const pure = isModel(path)
  const clientsAllowed = within(path, CLIENT_ROOMS) || ENTRY_POINTS.includes(path)
  const runtimeAllowed = within(path, RUNTIME_USERS) || ENTRY_POINTS.includes(path)
  for (const specifier of specifiersOf(text)) {
    if (!runtimeAllowed && specifier.startsWith('.') && posix.normalize(posix.join(posix.dirname(path), specifier)).startsWith('src/runtime/')) {
      problems.push(`${path}: imports ${specifier}; only entry points, cli/ and runtime/ import runtime/ (take narrow shapes instead)`)
    }
    if (!clientsAllowed) {
      const client = CLIENTS.find((name) => packageMatches(specifier, name))
      if (client !== undefined) problems.push(`${path}: imports ${client}; only mysql/, redis/, queue/, runtime/ and entry points may`)
    }
    if (!pure) continue
    if (specifier.startsWith('.')) {
      const target = posix.normalize(posix.join(posix.dirname(path), specifier))
      if (!isModel(target)) problems.push(`${path}: imports ${specifier}, which is not in a model/ folder (model/ is pure)`)
    } else if (!PURE_PACKAGES.some((name) => packageMatches(specifier, name))) {
      problems.push(`${path}: imports ${specifier}; model/ is pure (only ${PURE_PACKAGES.join(', ')} and other model/ files)`)
    }
  }
  return problems
}

/** The import circles among `files` (repository-relative paths to their texts): each as the files in it, sorted. */
export function importCircles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>()
  for (const [path, text] of files) {
    const targets = specifiersOf(text)
      .filter((s) => s.startsWith('.'))
      .map((s) => posix.normalize(posix.join(posix.dirname(path), s)).replace(/\.js$/, '.ts'))
      .filter((target) => files.has(target))
    edges.set(path, targets)
  }
  // Tarjan's strongly connected components: a component of more than one file (or a file importing itself) is a circle.
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const circles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w)
      component.push(w)
      if (w === v) break
    }
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) circles.push(component.sort())
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return circles
}

t.test('the circle finder finds circles and only them', async (t) => {
  const files = new Map([
    ['src/a/x.ts', "import { y } from './y.js'"],
    ['src/a/y.ts', "import { z } from '../b/z.js'"],
    ['src/b/z.ts', "const m = () => import('../a/x.js')"],
    ['src/b/w.ts', "import { z } from './z.js'"],
    ['src/c/self.ts', "export { s } from './self.js'"],
  ])
  t.same(importCircles(files), [['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts'], ['src/c/self.ts']])
  t.same(importCircles(new Map([...files].filter(([p]) => p !== 'src/b/z.ts' && p !== 'src/c/self.ts'))), [])
})

t.test('the checker catches each kind of violation', async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['src/http/x.ts', '/** h */\nimport type { Redis } from "ioredis"\n', 'a type-only client import in a feature', /imports ioredis/],
    ['src/delivery/x.ts', '/** h */\nimport {\n  sql,\n} from \'kysely\'\n', 'a multi-line client import', /imports kysely/],
    ['src/gateway/x.ts', '/** h */\nexport { Worker } from \'bullmq\'\n', 'a re-export of a client', /imports bullmq/],
    ['src/copies/x.ts', '/** h */\nconst m = await import(\'mysql2\')\n', 'a dynamic client import', /imports mysql2/],
    ['src/presence/model/x.ts', '/** h */\nimport { readFileSync } from \'node:fs\'\n', 'I/O in a model', /model\/ is pure/],
    ['src/codes/model/x.ts', '/** h */\nimport { randomBytes } from \'crypto\'\n', 'randomness in a model', /model\/ is pure/],
    ['src/http/model/x.ts', '/** h */\nimport pino from \'pino\'\n', 'logging in a model', /model\/ is pure/],
    ['src/queue/model/x.ts', '/** h */\nimport type { Job } from \'bullmq\'\n', 'a type-only client import in a model of a client room', /model\/ is pure/],
    ['src/queue/model/x.ts', '/** h */\nimport { createQueue } from \'../queues.js\'\n', 'a model reaching into its own room', /not in a model\/ folder/],
    ['src/http/model/x.ts', '/** h */\nimport { x } from \'../respond.js\'\n', 'a model reaching into the HTTP layer', /not in a model\/ folder/],
    ['src/health/x.ts', '/** h */\nimport type { ProcessContext } from \'../runtime/process-context.js\'\n', 'a feature importing the wiring', /only entry points, cli\/ and runtime\/ import runtime\//],
    ['src/presence/model/deep/x.ts', '/** h */\nimport { y } from \'../../read-path.js\'\n', 'a nested model file reaching out', /not in a model\/ folder/],
    ['src/http/x.ts', 'import * as v from \'valibot\'\n', 'a file without a header', /header comment/],
  ]
  for (const [path, text, what, expected] of cases) t.match(boundaryProblems(path, text).join('\n'), expected, what)
  const allowed: Array<[string, string, string]> = [
    ['src/redis/x.ts', '/** h */\nimport type { Redis } from \'ioredis\'\n', 'a client in its room'],
    ['workers/worker.ts', '#!/usr/bin/env node\n/** h */\nimport { Worker } from \'bullmq\'\n', 'an entry point with a shebang'],
    ['src/http/model/x.ts', '// h\nimport { CODE_PATTERN } from \'../../codes/model/codes.js\'\nimport * as v from \'valibot\'\n', 'a model using another room\'s model and valibot'],
    ['src/codes/model/x.ts', '/** h */\nimport { isCode } from \'./codes.js\'\n', 'a model using its own model'],
    ['src/http/respond.ts', '/** h */\nimport { ErrorCode } from \'./model/error-codes.js\'\n', 'a feature using its model'],
    ['src/cli/x.ts', '/** h */\nimport type { ProcessContext } from \'../runtime/process-context.js\'\n', 'the CLI using the wiring'],
  ]
  for (const [path, text, what] of allowed) t.same(boundaryProblems(path, text), [], what)
})

t.test('every file under src/ and workers/ keeps to the boundaries', async (t) => {
  const files = [...sourceFiles('src'), ...sourceFiles('workers')]
  t.ok(files.length > 50, `found ${files.length} source files`)
  const problems = files.flatMap((path) => boundaryProblems(normalize(path).split('\\').join('/'), readFileSync(join(ROOT, path), 'utf8')))
  t.same(problems, [], 'no boundary problems')
  t.ok(files.filter(isModel).length > 30, `${files.filter(isModel).length} files in model/ folders are checked as pure`)
  t.ok(files.every((f) => relative(ROOT, join(ROOT, f)) === f), 'paths are repository-relative')
})

t.test(`src/runtime/ stays wiring: at most ${RUNTIME_LINE_BUDGET} lines (a rule or a message belongs to its feature's room)`, async (t) => {
  const lines = sourceFiles('src/runtime').reduce((sum, path) => sum + readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1, 0)
  t.ok(lines <= RUNTIME_LINE_BUDGET, `src/runtime/ has ${lines} lines (budget ${RUNTIME_LINE_BUDGET})`)
})

t.test('no source files import each other in a circle (dynamic imports count)', async (t) => {
  const files = [...sourceFiles('src'), ...sourceFiles('workers')].map((path) => normalize(path).split('\\').join('/'))
  t.same(importCircles(new Map(files.map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]))), [])
})
