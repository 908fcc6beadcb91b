/** The drawn order of bidirectional text (src/presence/model/visual-order.ts), table-driven with hostile input. */
import t from 'tap'
import { type ParagraphDirection, bidiClassOf, drawnOrders, visualOrder } from '../../../src/presence/model/visual-order.js'

t.test('bidiClassOf', async (t) => {
  const cases: Array<[string, string, string]> = [
    ['a Latin letter', 'a', 'L'],
    ['a Hebrew letter', '\u05D0', 'R'],
    ['an Arabic letter', '\u0639', 'AL'],
    ['an ASCII digit', '7', 'EN'],
    ['an Arabic-Indic digit', '\u0663', 'AN'],
    ['an extended Arabic-Indic digit', '\u06F4', 'EN'],
    ['a combining accent', '\u0301', 'NSM'],
    ['an Arabic vowel sign', '\u064B', 'NSM'],
    ['the right-to-left mark', '\u200F', 'R'],
    ['the left-to-right mark', '\u200E', 'L'],
    ['the Arabic letter mark', '\u061C', 'AL'],
    ['a right-to-left override', '\u202E', 'RLO'],
    ['a first-strong isolate', '\u2068', 'FSI'],
    ['a zero-width joiner', '\u200D', 'BN'],
    ['a line feed', '\n', 'B'],
    ['a tab', '\t', 'S'],
    ['an ideographic space', '\u3000', 'WS'],
    ['a no-break space', '\u00A0', 'CS'],
    ['a dollar sign', '$', 'ET'],
    ['an emoji', '\u{1F3AE}', 'ON'],
    ['a CJK ideograph', '\u4E2D', 'L'],
    ['an unassigned code point in the Hebrew block', '\u05FF', 'R'],
  ]
  for (const [name, c, want] of cases) t.test(`${name} is ${want}`, async (t) => t.equal(bidiClassOf(c), want))
})

t.test('visualOrder', async (t) => {
  const cases: Array<{ name: string; input: string; direction: ParagraphDirection; want: string }> = [
    { name: 'plain Latin text is unchanged', input: 'Blinding Lights', direction: 'ltr', want: 'Blinding Lights' },
    { name: 'a right-to-left override reverses Latin letters', input: '\u202Exolbor', direction: 'ltr', want: 'roblox' },
    { name: 'the override ends at its PDF', input: 'a\u202Ebc\u202Cd', direction: 'ltr', want: 'acbd' },
    { name: 'the override ends at the end of its paragraph', input: '\u202Eab\nxolbor', direction: 'ltr', want: 'ba\nxolbor' },
    { name: 'the override runs on past a line separator', input: '\u202Eab\u2028cd', direction: 'ltr', want: 'ba\u2028dc' },
    { name: 'an override at the very end draws nothing', input: 'x\u202E', direction: 'ltr', want: 'x' },
    { name: 'an override inside an isolate ends with it', input: '\u2066\u202Eab\u2069cd', direction: 'ltr', want: '\u2066ba\u2069cd' },
    { name: 'a Hebrew word in Latin text is drawn right to left', input: 'abc \u05D0\u05D1\u05D2 def', direction: 'ltr', want: 'abc \u05D2\u05D1\u05D0 def' },
    { name: 'Hebrew first makes an automatic paragraph right to left', input: '\u05D0\u05D1 abc', direction: 'auto', want: 'abc \u05D1\u05D0' },
    { name: 'a left-to-right paragraph keeps Latin after Hebrew', input: '\u05D0\u05D1 abc', direction: 'ltr', want: '\u05D1\u05D0 abc' },
    { name: 'right-to-left marks swap Latin runs in an automatic paragraph', input: '\u200Flox\u200FRob', direction: 'auto', want: 'Rob\u200Flox\u200F' },
    { name: 'right-to-left marks alone do not move Latin runs left to right', input: '\u200Flox\u200FRob', direction: 'ltr', want: '\u200Flox\u200FRob' },
    { name: 'a mark inside a right-to-left isolate swaps its runs', input: 'a\u2067b\u200Fc\u2069d', direction: 'ltr', want: 'a\u2067c\u200Fb\u2069d' },
    { name: 'a space between Latin runs in an isolate keeps them in order', input: 'a\u2067b c\u2069d', direction: 'ltr', want: 'a\u2067b c\u2069d' },
    { name: 'European digits after Hebrew stay left to right', input: '\u05D0 123', direction: 'ltr', want: '123 \u05D0' },
    { name: 'Arabic-Indic digits before Hebrew', input: '\u0661\u0662 \u05D0', direction: 'ltr', want: '\u05D0 \u0661\u0662' },
    { name: 'a number with its separators stays whole', input: '\u0627\u0644 12.5%', direction: 'auto', want: '%12.5 \u0644\u0627' },
    { name: 'Hebrew look-alikes between Latin letters are drawn reversed', input: 'Rob\u05E1\u05D5x', direction: 'ltr', want: 'Rob\u05D5\u05E1x' },
    { name: 'each paragraph takes its own direction', input: '\u05D0\u05D1\n\u05D2 x', direction: 'auto', want: '\u05D1\u05D0\nx \u05D2' },
    { name: 'an isolate is skipped when choosing the direction', input: '\u2068\u05D0\u2069 abc', direction: 'auto', want: '\u2068\u05D0\u2069 abc' },
    { name: 'a left-to-right override keeps Hebrew in stored order', input: '\u202D\u05D0\u05D1\u202C', direction: 'auto', want: '\u05D0\u05D1' },
    { name: 'invisible joiners are left out', input: 'a\u200Db', direction: 'ltr', want: 'ab' },
    { name: 'emoji stay in place', input: '\u{1F3AE} \u202Exolbor', direction: 'ltr', want: '\u{1F3AE} roblox' },
    { name: 'empty text', input: '', direction: 'auto', want: '' },
    {
      name: '4,000 nested overrides stop at the depth limit and still reverse',
      input: `${'\u202E'.repeat(4000)}xolbor`,
      direction: 'ltr',
      want: 'roblox',
    },
    {
      // Levels climb to 125, an odd level (the last valid push is an embedding), where Hebrew is drawn first.
      name: '4,000 alternating embeddings and overrides stop at the depth limit',
      input: `${'\u202B\u202D'.repeat(2000)}ab\u05D0\u05D1`,
      direction: 'ltr',
      want: '\u05D1\u05D0ab',
    },
    {
      name: 'a 4,000-character right-to-left text is drawn reversed',
      input: '\u05D0\u05D1'.repeat(2000),
      direction: 'auto',
      want: '\u05D1\u05D0'.repeat(2000),
    },
  ]
  for (const c of cases) t.test(c.name, async (t) => t.equal(visualOrder(c.input, c.direction), c.want))
})

t.test('drawnOrders', async (t) => {
  t.equal(drawnOrders('Roblox'), null, 'nothing right to left: drawn as stored')
  t.equal(drawnOrders(`${'x'.repeat(4000)} \u202D\u2066ab\u2069`), null, 'left-to-right controls alone reorder nothing')
  t.same(drawnOrders('\u202Exolbor'), { ltr: 'roblox', auto: 'roblox' })
  t.same(drawnOrders('\u05D0\u05D1 abc'), { ltr: '\u05D1\u05D0 abc', auto: 'abc \u05D1\u05D0' })
})
