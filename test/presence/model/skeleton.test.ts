/** Look-alike matching (src/presence/model/skeleton.ts) and the generated confusables table, table-driven both ways. */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { nameSpeller, skeleton, spellsName } from '../../../src/presence/model/skeleton.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

t.test('skeleton', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['plain ASCII is lower-cased', 'Roblox', 'roblox'],
    ['Greek omicrons are o', 'R\u03BFbl\u03BFx', 'roblox'],
    ['a capital I is l', 'RobIox', 'roblox'],
    ['zeros are O', 'R0bl0x', 'roblox'],
    ['small capitals are their letters', '\u0280\u1D0F\u0299\u029F\u1D0Fx', 'roblox'],
    ['fullwidth letters fold (NFKC)', 'Ｒｏｂｌｏｘ', 'roblox'],
    ['mathematical bold letters fold (NFKC)', '𝐑𝐨𝐛𝐥𝐨𝐱', 'roblox'],
    ['Cyrillic capitals are Latin', 'R\u041E\u0412L\u041E\u0425', 'roblox'],
    ['accents are dropped', 'R\u00F3blox', 'roblox'],
    ['separators are removed', 'R o.b-l_o\nx', 'roblox'],
    ['invisible marks are dropped', 'R\u200Eo\u200Fb\u2060l\u00ADo\u3164x', 'roblox'],
    ['m is rn, as UTS #39 says', 'Minecraft', 'rninecraft'],
    ['empty text', '', ''],
  ]
  for (const [name, input, want] of cases) t.test(name, async (t) => t.equal(skeleton(input), want))
})

t.test('spellsName', async (t) => {
  const filtered: Array<[string, string]> = [
    ['Greek omicrons', 'R\u03BFbl\u03BFx'],
    ['a capital I for the l', 'RobIox'],
    ['zeros for the o', 'R0bl0x'],
    ['a one for the l', 'Rob1ox'],
    ['small capitals', '\u0280\u1D0F\u0299\u029F\u1D0Fx'],
    ['spaced letter by letter', 'R o b l o x'],
    ['dotted letter by letter', 'R.o.b.l.o.x'],
    ['spaced with tabs and non-breaking spaces', 'R\to\u00A0b l o x'],
    ['split across a line break', 'Rob\nlox'],
    ['split across a CRLF with spaces', 'playing Rob \r\n lox now'],
    ['split by a dot', 'Rob.lox'],
    ['dotted and spaced letter by letter', 'R. o. b. l. o. x'],
    ['Cyrillic look-alikes inside a sentence', 'now on R\u043Ebl\u043E\u0445!'],
    ['invisible marks between letters', 'R\u200Eob\u2060lo\u00ADx'],
    ['inside a longer word', 'MyRobloxGame'],
  ]
  for (const [name, text] of filtered) t.test(`finds the name ${name}`, async (t) => t.equal(spellsName(text, 'Roblox'), true))

  const kept: Array<[string, string]> = [
    ['two ordinary words that happen to meet', 'Pro Blox Racing'],
    ['a name split by one real space', 'Rob lox'],
    ['a person called Rob Loxley', 'Rob Loxley'],
    ['a different word with similar letters', 'Robin Hood'],
    ['a bagel shop', 'Carob lox bagels'],
    ['a game with m (rn) in it', 'Minecraft'],
    ['music', 'Blinding Lights'],
    ['nearly the name', 'Roblo x-ray'],
    ['ordinary punctuation between words', 'Bro, blox fruits time'],
    ['empty text', ''],
  ]
  for (const [name, text] of kept) t.test(`does not flag ${name}`, async (t) => t.equal(spellsName(text, 'Roblox'), false))

  t.test('an empty name matches nothing', async (t) => t.equal(spellsName('anything', ' . '), false))

  t.test('a speller made once answers as spellsName does', async (t) => {
    const spells = nameSpeller('Roblox')
    for (const [, text] of [...filtered, ...kept]) t.equal(spells(text), spellsName(text, 'Roblox'), text)
  })
})

t.test('the committed confusables table is what the generator writes', async (t) => {
  t.doesNotThrow(() => execFileSync(process.execPath, ['scripts/generate-confusables.mjs', '--check'], { cwd: ROOT, stdio: 'pipe' }))
})
