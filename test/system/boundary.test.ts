/**
 * The house's boundaries, checked on every source file under src/ and workers/: only the infrastructure rooms
 * (mysql/, redis/, queue/, runtime/) and the entry points import the database, Redis and queue clients; every
 * `model/` folder is pure: it imports only other `model/` files and valibot (no I/O, no clock or randomness from
 * outside, nothing of the features around it); every file opens with a header comment.
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
  for (const specifier of specifiersOf(text)) {
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
