/**
 * The order in which a bidirectional renderer (Discord's client, a Roblox TextLabel) draws a text, pure: the Unicode
 * Bidirectional Algorithm (UAX #9, with isolates), without bracket pairs (N0) and mirroring, which move punctuation
 * only. The platform filter judges this order too, so `\u202Exolbor` (drawn "roblox") is caught.
 */

/** A Unicode Bidi_Class value (UAX #9, table 4). */
export type BidiClass =
  | 'L' | 'R' | 'AL' | 'EN' | 'ES' | 'ET' | 'AN' | 'CS' | 'NSM' | 'BN' | 'B' | 'S' | 'WS' | 'ON'
  | 'LRE' | 'LRO' | 'RLE' | 'RLO' | 'PDF' | 'LRI' | 'RLI' | 'FSI' | 'PDI'

/** How the paragraph direction is chosen: left-to-right always, or from the first strong letter (rules P2, P3). */
export type ParagraphDirection = 'ltr' | 'auto'

// Bidi_Class of U+0000..U+007F, one letter or code per character.
const ASCII: readonly BidiClass[] = (() => {
  const out: BidiClass[] = []
  for (let cp = 0; cp < 0x80; cp++) {
    if (cp === 0x09 || cp === 0x0b || cp === 0x1f) out.push('S')
    else if (cp === 0x0a || cp === 0x0d || (cp >= 0x1c && cp <= 0x1e)) out.push('B')
    else if (cp === 0x0c || cp === 0x20) out.push('WS')
    else if (cp < 0x20 || cp === 0x7f) out.push('BN')
    else if (cp >= 0x30 && cp <= 0x39) out.push('EN')
    else if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) out.push('L')
    else if (cp >= 0x23 && cp <= 0x25) out.push('ET')
    else if (cp === 0x2b || cp === 0x2d) out.push('ES')
    else if (cp === 0x2c || cp === 0x2e || cp === 0x2f || cp === 0x3a) out.push('CS')
    else out.push('ON')
  }
  return out
})()

// Characters whose class the general rules below would get wrong (UnicodeData.txt, Unicode 14), as
// [first, last, class], sorted. Checked before anything else.
const SPECIFIC: ReadonlyArray<readonly [number, number, BidiClass]> = [
  [0x0085, 0x0085, 'B'], [0x00a0, 0x00a0, 'CS'], [0x00b0, 0x00b1, 'ET'], [0x00b2, 0x00b3, 'EN'], [0x00b9, 0x00b9, 'EN'],
  [0x0600, 0x0605, 'AN'], [0x0606, 0x0607, 'ON'], [0x0609, 0x060a, 'ET'], [0x060c, 0x060c, 'CS'], [0x060e, 0x060f, 'ON'],
  [0x061c, 0x061c, 'AL'], [0x0660, 0x0669, 'AN'], [0x066a, 0x066a, 'ET'], [0x066b, 0x066c, 'AN'], [0x06dd, 0x06dd, 'AN'],
  [0x06de, 0x06de, 'ON'], [0x06e9, 0x06e9, 'ON'], [0x06f0, 0x06f9, 'EN'], [0x070f, 0x070f, 'AL'], [0x07f6, 0x07f9, 'ON'],
  [0x0890, 0x0891, 'AN'], [0x08e2, 0x08e2, 'AN'], [0x1680, 0x1680, 'WS'], [0x2000, 0x200a, 'WS'], [0x200e, 0x200e, 'L'],
  [0x200f, 0x200f, 'R'], [0x2028, 0x2028, 'WS'], [0x2029, 0x2029, 'B'], [0x202a, 0x202a, 'LRE'], [0x202b, 0x202b, 'RLE'],
  [0x202c, 0x202c, 'PDF'], [0x202d, 0x202d, 'LRO'], [0x202e, 0x202e, 'RLO'], [0x202f, 0x202f, 'CS'], [0x2030, 0x2034, 'ET'],
  [0x2044, 0x2044, 'CS'], [0x205f, 0x205f, 'WS'], [0x2066, 0x2066, 'LRI'], [0x2067, 0x2067, 'RLI'], [0x2068, 0x2068, 'FSI'],
  [0x2069, 0x2069, 'PDI'], [0x2070, 0x2070, 'EN'], [0x2074, 0x2079, 'EN'], [0x207a, 0x207b, 'ES'], [0x2080, 0x2089, 'EN'],
  [0x208a, 0x208b, 'ES'], [0x212e, 0x212e, 'ET'], [0x2212, 0x2212, 'ES'], [0x2213, 0x2213, 'ET'], [0x2488, 0x249b, 'EN'],
  [0x3000, 0x3000, 'WS'], [0xfb29, 0xfb29, 'ES'], [0xfd3e, 0xfd4f, 'ON'], [0xfdcf, 0xfdcf, 'ON'], [0xfdfd, 0xfdff, 'ON'],
  [0xfe50, 0xfe50, 'CS'], [0xfe52, 0xfe52, 'CS'], [0xfe55, 0xfe55, 'CS'], [0xfe5f, 0xfe5f, 'ET'], [0xfe62, 0xfe63, 'ES'],
  [0xfe69, 0xfe6a, 'ET'], [0xfeff, 0xfeff, 'BN'], [0xff03, 0xff05, 'ET'], [0xff0b, 0xff0b, 'ES'], [0xff0c, 0xff0c, 'CS'],
  [0xff0d, 0xff0d, 'ES'], [0xff0e, 0xff0f, 'CS'], [0xff10, 0xff19, 'EN'], [0xff1a, 0xff1a, 'CS'], [0xfff9, 0xfffb, 'ON'],
  [0x102e1, 0x102fb, 'EN'], [0x10b39, 0x10b3f, 'ON'], [0x10d30, 0x10d39, 'AN'], [0x10e60, 0x10e7e, 'AN'],
  [0x1d7ce, 0x1d7ff, 'EN'], [0x1eef0, 0x1eef1, 'ON'], [0x1f100, 0x1f10a, 'EN'], [0x1fbf0, 0x1fbf9, 'EN'],
]

// The right-to-left blocks, with the defaults DerivedBidiClass.txt gives their unassigned code points: letters there
// are R (Hebrew, NKo, Samaritan...) or AL (Arabic, Syriac, Thaana...).
const RIGHT_TO_LEFT: ReadonlyArray<readonly [number, number, 'R' | 'AL']> = [
  [0x0590, 0x05ff, 'R'], [0x0600, 0x07bf, 'AL'], [0x07c0, 0x085f, 'R'], [0x0860, 0x08ff, 'AL'], [0xfb1d, 0xfb4f, 'R'],
  [0xfb50, 0xfdff, 'AL'], [0xfe70, 0xfeff, 'AL'], [0x10800, 0x10cff, 'R'], [0x10d00, 0x10d3f, 'AL'], [0x10d40, 0x10ebf, 'R'],
  [0x10ec0, 0x10eff, 'AL'], [0x10f00, 0x10f2f, 'R'], [0x10f30, 0x10f6f, 'AL'], [0x10f70, 0x10fff, 'R'], [0x1e800, 0x1ec6f, 'R'],
  [0x1ec70, 0x1ecbf, 'AL'], [0x1ecc0, 0x1ecff, 'R'], [0x1ed00, 0x1ed4f, 'AL'], [0x1ed50, 0x1edff, 'R'], [0x1ee00, 0x1eeff, 'AL'],
  [0x1ef00, 0x1efff, 'R'],
]

// A text without any of these draws in stored order in a left-to-right paragraph (and chooses left-to-right itself):
// nothing in it is right-to-left or an Arabic number, and nothing opens a right-to-left embedding or isolate.
const MAY_REORDER =
  /[\u0590-\u08FF\u200F\u202B\u202E\u2067\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u
const NONSPACING = /[\p{Mn}\p{Me}]/u
const IGNORABLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u
const CURRENCY = /\p{Sc}/u
// Punctuation, symbols and other numbers shared by every script are neutral; a script's own are L.
const OTHER_NEUTRAL = /(?=\p{Script=Common})[\p{P}\p{S}\p{Z}\p{No}]/u
const MAX_DEPTH = 125

function lookup<T>(ranges: ReadonlyArray<readonly [number, number, T]>, cp: number): T | undefined {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const [first, last, value] = ranges[mid]!
    if (cp < first) hi = mid - 1
    else if (cp > last) lo = mid + 1
    else return value
  }
  return undefined
}

/** The Bidi_Class of one character: exact for every class that moves letters, close for the neutral symbols. */
export function bidiClassOf(c: string): BidiClass {
  const cp = c.codePointAt(0) ?? 0
  if (cp < 0x80) return ASCII[cp]!
  const specific = lookup(SPECIFIC, cp)
  if (specific !== undefined) return specific
  if (NONSPACING.test(c)) return 'NSM'
  const rtl = lookup(RIGHT_TO_LEFT, cp)
  if (rtl !== undefined) return rtl
  if (IGNORABLE.test(c)) return 'BN'
  if (CURRENCY.test(c)) return 'ET'
  if (OTHER_NEUTRAL.test(c)) return 'ON'
  return 'L'
}

const isIsolateInitiator = (t: BidiClass): boolean => t === 'LRI' || t === 'RLI' || t === 'FSI'
// Rule X9: these draw nothing and take no part in resolving the others.
const isRemoved = (t: BidiClass): boolean =>
  t === 'BN' || t === 'LRE' || t === 'RLE' || t === 'LRO' || t === 'RLO' || t === 'PDF'
const isNeutralOrIsolate = (t: BidiClass): boolean =>
  t === 'B' || t === 'S' || t === 'WS' || t === 'ON' || isIsolateInitiator(t) || t === 'PDI'
const directionOf = (level: number): 'L' | 'R' => ((level & 1) === 1 ? 'R' : 'L')

/** Rules P2 and P3 over [from, to): 0 or 1 for the first strong letter outside isolates, null when there is none. */
function firstStrongLevel(classes: readonly BidiClass[], matchingPdi: Int32Array, from: number, to: number): number | null {
  for (let i = from; i < to; i++) {
    const t = classes[i]!
    if (t === 'L') return 0
    if (t === 'R' || t === 'AL') return 1
    if (isIsolateInitiator(t)) {
      if (matchingPdi[i]! < 0) return null
      i = matchingPdi[i]!
    }
  }
  return null
}

/** A run of rule L2: characters and inner runs at a higher level, in stored order. */
interface RunNode {
  level: number
  children: Array<number | RunNode>
}

interface Entry {
  level: number
  override: 'L' | 'R' | null
  isolate: boolean
}

/** Rules X1-X8: each character's embedding level, and its class as overrides leave it. */
function explicitLevels(
  classes: readonly BidiClass[],
  matchingPdi: Int32Array,
  paragraphLevel: number,
): { levels: Uint8Array; types: BidiClass[] } {
  const n = classes.length
  const levels = new Uint8Array(n)
  const types = classes.slice()
  const stack: Entry[] = [{ level: paragraphLevel, override: null, isolate: false }]
  let overflowIsolates = 0
  let overflowEmbeddings = 0
  let validIsolates = 0
  for (let i = 0; i < n; i++) {
    const t = classes[i]!
    const top = stack[stack.length - 1]!
    if (t === 'RLE' || t === 'LRE' || t === 'RLO' || t === 'LRO') {
      const rtl = t === 'RLE' || t === 'RLO'
      const level = rtl ? (top.level + 1) | 1 : (top.level + 2) & ~1
      if (level <= MAX_DEPTH && overflowIsolates === 0 && overflowEmbeddings === 0) {
        stack.push({ level, override: t === 'RLO' ? 'R' : t === 'LRO' ? 'L' : null, isolate: false })
      } else if (overflowIsolates === 0) overflowEmbeddings++
      levels[i] = top.level
    } else if (isIsolateInitiator(t)) {
      levels[i] = top.level
      if (top.override !== null) types[i] = top.override
      const rtl = t === 'RLI' || (t === 'FSI' && firstStrongLevel(classes, matchingPdi, i + 1, matchingPdi[i]! < 0 ? n : matchingPdi[i]!) === 1)
      const level = rtl ? (top.level + 1) | 1 : (top.level + 2) & ~1
      if (level <= MAX_DEPTH && overflowIsolates === 0 && overflowEmbeddings === 0) {
        validIsolates++
        stack.push({ level, override: null, isolate: true })
      } else overflowIsolates++
    } else if (t === 'PDI') {
      if (overflowIsolates > 0) overflowIsolates--
      else if (validIsolates > 0) {
        overflowEmbeddings = 0
        while (!stack[stack.length - 1]!.isolate) stack.pop()
        stack.pop()
        validIsolates--
      }
      const now = stack[stack.length - 1]!
      levels[i] = now.level
      if (now.override !== null) types[i] = now.override
    } else if (t === 'PDF') {
      if (overflowIsolates > 0) {
        // an overflowing isolate hides this PDF
      } else if (overflowEmbeddings > 0) overflowEmbeddings--
      else if (!top.isolate && stack.length >= 2) stack.pop()
      levels[i] = top.level
    } else if (t === 'B') {
      levels[i] = paragraphLevel
    } else {
      levels[i] = top.level
      if (top.override !== null && t !== 'BN') types[i] = top.override
    }
  }
  return { levels, types }
}

/** Rules W1-W7, N1-N2 and I1-I2 over one isolating run sequence (`seq` holds character indices). */
function resolveSequence(seq: readonly number[], types: BidiClass[], levels: Uint8Array, sos: 'L' | 'R', eos: 'L' | 'R'): void {
  const m = seq.length
  const at = (k: number): BidiClass => types[seq[k]!]!
  const set = (k: number, t: BidiClass): void => {
    types[seq[k]!] = t
  }
  for (let k = 0; k < m; k++) {
    if (at(k) !== 'NSM') continue
    const before = k === 0 ? sos : at(k - 1)
    set(k, k > 0 && (isIsolateInitiator(before) || before === 'PDI') ? 'ON' : before)
  }
  let strong: BidiClass = sos
  for (let k = 0; k < m; k++) {
    const t = at(k)
    if (t === 'L' || t === 'R' || t === 'AL') strong = t
    else if (t === 'EN' && strong === 'AL') set(k, 'AN')
  }
  for (let k = 0; k < m; k++) if (at(k) === 'AL') set(k, 'R')
  for (let k = 1; k < m - 1; k++) {
    const t = at(k)
    const before = at(k - 1)
    const after = at(k + 1)
    if (t === 'ES' && before === 'EN' && after === 'EN') set(k, 'EN')
    else if (t === 'CS' && before === after && (before === 'EN' || before === 'AN')) set(k, before)
  }
  for (let k = 0; k < m; k++) {
    if (at(k) !== 'ET') continue
    let end = k
    while (end < m && at(end) === 'ET') end++
    if ((k > 0 && at(k - 1) === 'EN') || (end < m && at(end) === 'EN')) for (let j = k; j < end; j++) set(j, 'EN')
    k = end - 1
  }
  for (let k = 0; k < m; k++) {
    const t = at(k)
    if (t === 'ES' || t === 'ET' || t === 'CS') set(k, 'ON')
  }
  strong = sos
  for (let k = 0; k < m; k++) {
    const t = at(k)
    if (t === 'L' || t === 'R') strong = t
    else if (t === 'EN' && strong === 'L') set(k, 'L')
  }
  const embedding = directionOf(levels[seq[0]!]!)
  const strongSide = (t: BidiClass): 'L' | 'R' => (t === 'L' ? 'L' : 'R')
  for (let k = 0; k < m; k++) {
    if (!isNeutralOrIsolate(at(k))) continue
    let end = k
    while (end < m && isNeutralOrIsolate(at(end))) end++
    const before = k === 0 ? sos : strongSide(at(k - 1))
    const after = end === m ? eos : strongSide(at(end))
    const resolved = before === after ? before : embedding
    for (let j = k; j < end; j++) set(j, resolved)
    k = end - 1
  }
  for (const i of seq) {
    const t = types[i]!
    const level = levels[i]!
    if ((level & 1) === 0) {
      if (t === 'R') levels[i] = level + 1
      else if (t === 'AN' || t === 'EN') levels[i] = level + 2
    } else if (t === 'L' || t === 'EN' || t === 'AN') levels[i] = level + 1
  }
}

/** BD9: the index of each isolate initiator's matching PDI, -1 for none. */
function matchIsolates(classes: readonly BidiClass[]): Int32Array {
  const matchingPdi = new Int32Array(classes.length).fill(-1)
  const open: number[] = []
  classes.forEach((t, i) => {
    if (isIsolateInitiator(t)) open.push(i)
    else if (t === 'PDI' && open.length > 0) matchingPdi[open.pop()!] = i
  })
  return matchingPdi
}

/** One paragraph (no B inside, except maybe last) in drawn order, without the characters rule X9 removes. */
function drawParagraph(
  chars: readonly string[],
  classes: readonly BidiClass[],
  matchingPdi: Int32Array,
  paragraphLevel: number,
): string {
  const n = chars.length
  const { levels, types } = explicitLevels(classes, matchingPdi, paragraphLevel)

  const kept: number[] = []
  for (let i = 0; i < n; i++) if (!isRemoved(classes[i]!)) kept.push(i)
  const keptPos = new Int32Array(n).fill(-1)
  kept.forEach((i, k) => {
    keptPos[i] = k
  })

  // Rule X10: level runs, chained into isolating run sequences across matched isolates.
  const runs: number[][] = []
  for (const i of kept) {
    const last = runs[runs.length - 1]
    if (last !== undefined && levels[last[0]!] === levels[i]) last.push(i)
    else runs.push([i])
  }
  const runStartingAt = new Map<number, number>()
  runs.forEach((run, r) => runStartingAt.set(run[0]!, r))
  const used = new Uint8Array(runs.length)
  // Every sequence's sos and eos come from the explicit levels, so all are found before any is resolved.
  const sequences: Array<{ seq: number[]; sos: 'L' | 'R'; eos: 'L' | 'R' }> = []
  for (let r = 0; r < runs.length; r++) {
    if (used[r] === 1) continue
    used[r] = 1
    const seq = [...runs[r]!]
    for (;;) {
      const lastChar = seq[seq.length - 1]!
      const pdi = isIsolateInitiator(classes[lastChar]!) ? matchingPdi[lastChar]! : -1
      const next = pdi < 0 ? undefined : runStartingAt.get(pdi)
      if (next === undefined || used[next] === 1) break
      used[next] = 1
      seq.push(...runs[next]!)
    }
    const level = levels[seq[0]!]!
    const firstPos = keptPos[seq[0]!]!
    const beforeLevel = firstPos > 0 ? levels[kept[firstPos - 1]!]! : paragraphLevel
    const lastChar = seq[seq.length - 1]!
    const lastPos = keptPos[lastChar]!
    const afterLevel =
      isIsolateInitiator(classes[lastChar]!) || lastPos === kept.length - 1 ? paragraphLevel : levels[kept[lastPos + 1]!]!
    sequences.push({ seq, sos: directionOf(Math.max(level, beforeLevel)), eos: directionOf(Math.max(level, afterLevel)) })
  }
  for (const { seq, sos, eos } of sequences) resolveSequence(seq, types, levels, sos, eos)

  let out = ''
  let lineStart = 0
  for (let i = 0; i <= n; i++) {
    if (i < n && chars[i] !== '\u2028') continue
    const lineEnd = Math.min(i + 1, n)
    out += drawLine(chars, classes, levels, lineStart, lineEnd, paragraphLevel)
    lineStart = lineEnd
  }
  return out
}

/** Rules L1 and L2 over one line [from, to) of a paragraph. */
function drawLine(
  chars: readonly string[],
  classes: readonly BidiClass[],
  levels: Uint8Array,
  from: number,
  to: number,
  paragraphLevel: number,
): string {
  let trailing = true
  for (let i = to - 1; i >= from; i--) {
    const t = classes[i]!
    if (t === 'S' || t === 'B') {
      levels[i] = paragraphLevel
      trailing = true
    } else if (t === 'WS' || isIsolateInitiator(t) || t === 'PDI' || isRemoved(t)) {
      if (trailing) levels[i] = paragraphLevel
    } else trailing = false
  }
  // The separator that ends the line stays at its end, so the lines keep their order.
  const last = to - 1
  const separator = last >= from && (classes[last] === 'B' || chars[last] === '\u2028') ? chars[last]! : ''
  // Rule L2 reverses, for every level from the highest down to the lowest odd one, each run at that level or higher:
  // done level by level that is O(length x depth), so the runs are built as a tree instead (each node a run, its
  // flips the levels at which it is reversed) and read once.
  const root: RunNode = { level: 0, children: [] }
  let lowest = MAX_DEPTH + 2
  for (let i = from; i < (separator === '' ? to : last); i++) {
    if (!isRemoved(classes[i]!) && levels[i]! < lowest) lowest = levels[i]!
  }
  root.level = (lowest | 1) - 1
  const open: RunNode[] = [root]
  for (let i = from; i < (separator === '' ? to : last); i++) {
    if (isRemoved(classes[i]!)) continue
    const level = levels[i]!
    let closed: RunNode | undefined
    while (open[open.length - 1]!.level > level) closed = open.pop()
    const top = open[open.length - 1]!
    if (top.level < level) {
      const run: RunNode = { level, children: [] }
      // A run closed just now at a higher level lies inside the new one.
      if (closed !== undefined) run.children.push(top.children.pop()!)
      top.children.push(run)
      open.push(run)
    }
    open[open.length - 1]!.children.push(i)
  }
  let out = ''
  const read = (run: RunNode, reversed: boolean): void => {
    const n = run.children.length
    for (let k = 0; k < n; k++) {
      const child = run.children[reversed ? n - 1 - k : k]!
      if (typeof child === 'number') out += chars[child]
      else read(child, reversed !== (((child.level - run.level) & 1) === 1))
    }
  }
  read(root, false)
  return out + separator
}

/** The text drawn with each paragraph direction asked for, in that order (a paragraph is drawn once per level). */
function draw(text: string, directions: readonly ParagraphDirection[]): string[] {
  const chars = Array.from(text)
  const classes = chars.map(bidiClassOf)
  const outs = directions.map(() => '')
  let start = 0
  while (start < chars.length) {
    let end = start
    while (end < chars.length && classes[end] !== 'B') end++
    end = Math.min(end + 1, chars.length)
    const paragraph = chars.slice(start, end)
    const paragraphClasses = classes.slice(start, end)
    const matchingPdi = matchIsolates(paragraphClasses)
    const drawnAt: string[] = []
    directions.forEach((direction, k) => {
      const level = direction === 'ltr' ? 0 : (firstStrongLevel(paragraphClasses, matchingPdi, 0, paragraph.length) ?? 0)
      drawnAt[level] ??= drawParagraph(paragraph, paragraphClasses, matchingPdi, level)
      outs[k] += drawnAt[level]
    })
    start = end
  }
  return outs
}

/**
 * The text as a bidirectional renderer draws it, left to right on screen: paragraphs (split at paragraph separators)
 * and lines (at U+2028) keep their place; the directional formatting and other invisible characters that rule X9
 * removes are left out.
 */
export function visualOrder(text: string, direction: ParagraphDirection): string {
  return draw(text, [direction])[0]!
}

/** A text as drawn in a left-to-right paragraph and in one whose direction comes from its first strong letter. */
export interface DrawnText {
  ltr: string
  auto: string
}

/**
 * The orders a renderer may draw the text in: in a left-to-right paragraph (Discord's client) and in one whose
 * direction comes from the first strong letter. Null when nothing in the text can reorder it (then both are the
 * stored order), which one scan tells.
 */
export function drawnOrders(text: string): DrawnText | null {
  if (!MAY_REORDER.test(text)) return null
  const [ltr, auto] = draw(text, ['ltr', 'auto'])
  return { ltr: ltr!, auto: auto! }
}
