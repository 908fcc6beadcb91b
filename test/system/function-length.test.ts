/**
 * No function in src/ or workers/ is over 120 lines (issue 20): every .ts file is parsed with the TypeScript compiler
 * API and every function (declarations, function expressions, arrow functions, methods, constructors and accessors,
 * nested ones included) is measured on its own span, from its first line to its last. Any function over the limit
 * fails the test, unless ALLOWED names it (it names none): an allowed function may shrink, never grow. The longest
 * function is printed as a comment.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { sourceFiles } from '../helpers/source-files.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The longest a function may be, in lines. */
const MAX_LINES = 120

/**
 * Known offenders, `path name` to the length in lines each may keep. Empty since issue 20 shrank the last of them: any
 * function over the limit fails. Kept so that a function that must stay long for a while can be named here, with its
 * length, in the same commit that explains why.
 */
const ALLOWED: Readonly<Record<string, number>> = {}

/** A function over the limit. */
export interface LongFunction {
  path: string
  /** 1-based line of its first line. */
  line: number
  name: string
  lines: number
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  )
}

function nameText(name: ts.Node | undefined, sf: ts.SourceFile): string | undefined {
  if (name === undefined) return undefined
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : name.getText(sf)
}

/**
 * A readable name: its own, else what it is assigned to (`const x = () =>`, `{ x: () => }`, `a.b = function`),
 * else the call it is an argument of (`on('exit') callback`).
 */
export function functionName(node: FunctionNode, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const own = nameText(node.name, sf)
  if (own !== undefined) return ts.isGetAccessorDeclaration(node) ? `get ${own}` : ts.isSetAccessorDeclaration(node) ? `set ${own}` : own
  let parent = node.parent
  while (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent)) parent = parent.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return nameText(parent.name, sf) ?? '<anonymous>'
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.left.getText(sf)
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression
    const called = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : '<call>'
    const first = parent.arguments?.[0]
    const label = first !== undefined && first !== node && ts.isStringLiteralLike(first) ? `${called}('${first.text}')` : `${called}()`
    return `${label} callback`
  }
  return '<anonymous>'
}

/** Every function of one source text over `max` lines, in source order; `path` is repository-relative. */
export function longFunctions(path: string, text: string, max = MAX_LINES): LongFunction[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: LongFunction[] = []
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = last - first + 1
      if (lines > max) found.push({ path, line: first + 1, name: functionName(node, sf), lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

/** How a long function is reported: `path:line name (N lines)`. */
export const report = (f: LongFunction) => `${f.path}:${f.line} ${f.name} (${f.lines} lines)`

/** The long functions not covered by `allowed`: new ones, and allowed ones that grew. */
export function offenders(found: readonly LongFunction[], allowed: Readonly<Record<string, number>>): string[] {
  return found
    .filter((f) => {
      const limit = allowed[`${f.path} ${f.name}`]
      return limit === undefined || f.lines > limit
    })
    .map((f) => {
      const limit = allowed[`${f.path} ${f.name}`]
      return limit === undefined ? report(f) : `${report(f)}, grew past its allowance of ${limit}`
    })
}

t.test('the checker', async (t) => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  step(${i})`).join('\n')
  // A function of `n` lines in all: its first line, n - 2 lines of body, its last line.
  const fn = (head: string, n: number, tail = '}') => `${head}\n${body(n - 2)}\n${tail}`

  t.test('a planted long function fails, reported as path:line name (N lines)', async (t) => {
    const text = `/** h */\nimport x from 'y'\n\n${fn('export function tooLong(): void {', 121)}\n`
    const found = longFunctions('src/planted/x.ts', text)
    t.same(found.map(report), ['src/planted/x.ts:4 tooLong (121 lines)'])
    t.same(offenders(found, {}), ['src/planted/x.ts:4 tooLong (121 lines)'], 'a new offender fails the test')
  })

  t.test('120 lines is allowed', async (t) => {
    t.same(longFunctions('src/x.ts', fn('function justRight() {', 120)), [])
  })

  t.test('every kind of function is measured, nested ones on their own span', async (t) => {
    const inner = fn('  const helper = async (a: number) => {', 125, '  }')
    const text = [
      fn('export function outer() {', 10).replace(/\n}$/, `\n${inner}\n}`),
      fn('const expression = function () {', 130),
      fn('class Room {\n  constructor() {', 122, '  }\n}'),
      fn('class Shelf {\n  open(): void {', 123, '  }\n}'),
      fn('class Lamp {\n  get light(): number {', 124, '  }\n}'),
      fn('runProcess(\'front\', async (ctx) => {', 126, '})'),
      fn('emitter.on(\'exit\', function (code) {', 127, '})'),
      fn('const table = {\n  render: (rows: string[]) => {', 128, '  },\n}'),
      fn('const wrapped = (() => {', 129, '}) as () => void'),
    ].join('\n')
    t.same(longFunctions('src/x.ts', text).map((f) => `${f.name} (${f.lines} lines)`), [
      'outer (135 lines)',
      'helper (125 lines)',
      'expression (130 lines)',
      'constructor (122 lines)',
      'open (123 lines)',
      'get light (124 lines)',
      'runProcess(\'front\') callback (126 lines)',
      'on(\'exit\') callback (127 lines)',
      'render (128 lines)',
      'wrapped (129 lines)',
    ])
  })

  t.test('an allowed function may stay or shrink, not grow', async (t) => {
    const found = longFunctions('src/http/x.ts', fn('export function createBig() {', 300))
    t.same(offenders(found, { 'src/http/x.ts createBig': 300 }), [], 'at its allowance')
    t.same(offenders(found, { 'src/http/x.ts createBig': 310 }), [], 'shrunk')
    t.same(offenders(found, { 'src/http/x.ts createBig': 299 }), ['src/http/x.ts:1 createBig (300 lines), grew past its allowance of 299'])
  })
})

t.test(`no function under src/ or workers/ is over ${MAX_LINES} lines`, async (t) => {
  const files = [...sourceFiles('src'), ...sourceFiles('workers')]
  t.ok(files.length > 50, `parsed ${files.length} source files`)
  const every = files.flatMap((path) => longFunctions(path, readFileSync(join(ROOT, path), 'utf8'), 0))
  const found = every.filter((f) => f.lines > MAX_LINES)
  t.same(offenders(found, ALLOWED), [], 'no new function over the limit, and no allowed one grew')
  const longest = every.reduce<LongFunction | undefined>((a, b) => (a === undefined || b.lines > a.lines ? b : a), undefined)
  if (longest !== undefined) t.comment(`longest function: ${report(longest)}`)
  const seen = new Map(found.map((f) => [`${f.path} ${f.name}`, f.lines]))
  for (const [key, limit] of Object.entries(ALLOWED)) {
    const now = seen.get(key)
    if (now === undefined) t.comment(`${key}: now within ${MAX_LINES} lines (or gone): remove it from ALLOWED`)
    else if (now < limit) t.comment(`${key}: ${now} lines, allowed ${limit}: lower its allowance`)
  }
})
