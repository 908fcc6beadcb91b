/**
 * The Roblox module's grammar (clients/roblox/PresenceLink/Blocks.lua) under Luau, held to the TypeScript reference
 * (src/presence/model/parse-blocks.ts, src/codes/model/codes.ts): every grammar vector of test/fixtures/blocks.json and
 * every typed code of test/fixtures/typed-codes.json give the expected result, and responses the service's own renderer
 * writes from hostile text parse as the reference parses them. Run for both forms of the module: the ModuleScript tree
 * and the generated single script (test/clients/roblox/codes.lua; no service needed).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { type ActivityInput, renderActivityGroups } from '../../../../src/presence/model/activity.js'
import { type CodeView, renderCallbackBlock, renderRpcBlock } from '../../../../src/presence/model/blocks.js'
import { parseCallbacks, parseRpc } from '../../../../src/presence/model/parse-blocks.js'
import { runLuauScenario } from '../../../helpers/luau-scenario.js'

const fixture = (name: string): any => JSON.parse(readFileSync(new URL(`../../../fixtures/${name}`, import.meta.url), 'utf8'))

/**
 * The Luau side's JSON in the shape of the expected value: the harness writes an empty table as {} and leaves nil
 * fields out, so empty lists and null usernames are read back from the expectation's shape.
 */
function likeExpected(actual: any, expected: any): any {
  if (Array.isArray(expected)) {
    const list = Array.isArray(actual) ? actual : actual !== null && typeof actual === 'object' && Object.keys(actual).length === 0 ? [] : actual
    return Array.isArray(list) ? list.map((item, i) => likeExpected(item, expected[i])) : list
  }
  if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    const out: Record<string, unknown> = { ...actual }
    for (const [key, value] of Object.entries(expected)) {
      out[key] = value === null && !(key in actual) ? null : likeExpected(actual[key], value)
    }
    return out
  }
  return actual
}

// Text a player or a hostile Discord user can put in a name, a title or an artist.
const HOSTILE = ['Minecraft', 'The Weeknd; Daft Punk', 'line\nbreak', 'crlf\r\nbreak', '{ABCD;', '"Detection Paused";', 'ends with a comma,', '(unlinked)', 'No activity detected', '👨‍👩‍👧‍👦 family', '🇯🇵🇫🇷', 'x'.repeat(4000), '🎵'.repeat(1000), '\t\ttabbed\t', 'para\u2028graph\u2029sep', '\u202Eevil\u202C', 'nul\u0000byte', 'del\u007Fc1\u0085', 'e\u0301té', 'AB%26', '']

/** Responses as the service renders them, from a fixed seed: [{ kind, text }]. */
function renderedCorpus(): Array<{ kind: 'callbacks' | 'rpc'; text: string }> {
  let state = 20261128
  const next = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 4294967296
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const corpus: Array<{ kind: 'callbacks' | 'rpc'; text: string }> = []
  for (let response = 0; response < 120; response++) {
    const kind = response % 3 === 2 ? 'rpc' : 'callbacks'
    let text = ''
    for (let block = Math.floor(next() * 6) + 1; block > 0; block--) {
      const code = Array.from({ length: 4 }, () => pick([...'ABCDEFGHJKMNPQRSTUVWXYZ0123456789'])).join('')
      const activities: ActivityInput[] = Array.from({ length: Math.floor(next() * 5) }, () => ({ type: pick([0, 1, 2, 3, 5]), name: pick(HOSTILE), details: pick(HOSTILE), state: pick(HOSTILE) }))
      const view: CodeView = pick<CodeView>([
        { kind: 'active', username: pick(HOSTILE) || 'Bob', activity: renderActivityGroups(activities, 'Roblox') },
        { kind: 'active', username: pick(HOSTILE) || 'Bob', activity: renderActivityGroups(activities, 'Roblox') },
        { kind: 'banned', username: next() < 0.5 ? null : pick(HOSTILE) || 'Bob' },
        { kind: 'invalidated', username: pick(HOSTILE) || 'Bob' },
        { kind: 'paused' },
        { kind: 'not_linked' },
        { kind: 'not_found' },
      ])
      text += kind === 'rpc' ? renderRpcBlock(code, view) : renderCallbackBlock(code, view)
    }
    corpus.push({ kind, text })
  }
  return corpus
}

const vectors = fixture('blocks.json') as Array<{ name: string; kind: string; text: string; expect: unknown }>
const typed = fixture('typed-codes.json') as Array<{ typed: string; candidates: string[] }>
const corpus = renderedCorpus()
const dir = mkdtempSync(join(tmpdir(), 'presence-link-corpus-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const corpusFile = join(dir, 'corpus.json')
writeFileSync(corpusFile, JSON.stringify(corpus))

for (const form of ['tree', 'single']) {
  t.test(`the ${form === 'tree' ? 'ModuleScript tree' : 'single script'}`, async (t) => {
    const out = await runLuauScenario('codes.lua', { PRESENCE_LINK_FORM: form, CORPUS: corpusFile })
    t.equal(out.version, '2.0.0')
    t.equal(out.typed.length, typed.length)
    typed.forEach((c, i) => t.strictSame(likeExpected(out.typed[i].candidates, c.candidates), c.candidates, `typed ${JSON.stringify(c.typed)}`))
    t.equal(out.blocks.length, vectors.length, 'every grammar vector')
    vectors.forEach((c, i) => t.strictSame(likeExpected(out.blocks[i].result, c.expect), c.expect, `${c.kind}: ${c.name}`))
    t.equal(out.corpus.length, corpus.length, 'every rendered response')
    corpus.forEach((c, i) => {
      const reference = c.kind === 'rpc' ? parseRpc(c.text) : parseCallbacks(c.text)
      t.ok(reference.ok, `the reference reads rendered response ${i}`)
      t.strictSame(likeExpected(out.corpus[i], reference), reference, `rendered ${c.kind} response ${i}`)
    })
  })
}
