/**
 * Look-alike matching for the activity filter, pure. A text's skeleton is what a reader sees: Unicode NFKC, the
 * UTS #39 confusables mapping to ASCII (confusables-data.ts, generated), accents and invisible marks dropped, lower
 * case. Separators (spaces, dots, line breaks) are not part of the skeleton but are remembered between letters, so
 * `R o b l o x` and a name split across a line break are found while `Pro Blox` (two ordinary words) is not.
 */
import { CONFUSABLE_ENTRIES } from './confusables-data.js'

const CONFUSABLES: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>()
  for (const line of CONFUSABLE_ENTRIES) {
    for (const entry of line.split(' ')) {
      const [source, ...target] = [...entry]
      if (source !== undefined) map.set(source, target.join(''))
    }
  }
  return map
})()

/** What stands between two skeleton letters: nothing, a space, a line break, or punctuation and symbols. */
export type Gap = 'none' | 'space' | 'break' | 'mark'

/** One skeleton letter and what separated it from the letter before. */
export interface SkeletonLetter {
  letter: string
  gapBefore: Gap
}

const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/u
const WHITESPACE = /\s/u
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
const COMBINING = /\p{M}/u
// Invisible code points spell nothing to a reader, so they are dropped, not treated as separators.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u

function prototypeOf(c: string): string {
  return (CONFUSABLES.get(c) ?? CONFUSABLES.get(c.toLowerCase()) ?? c).toLowerCase()
}

/**
 * The skeleton letters of a text, each with what separated it from the previous letter: a line break wins, then a
 * space (so `Bro, blox` reads as ordinary punctuation between words), then punctuation alone (`Rob.lox`).
 */
export function skeletonLetters(text: string): SkeletonLetter[] {
  const out: SkeletonLetter[] = []
  let gap: Gap = 'none'
  // NFKC folds fullwidth, mathematical and superscript letters; NFD then splits accents off so they can be dropped.
  for (const c of text.normalize('NFKC').normalize('NFD')) {
    if (INVISIBLE.test(c) || COMBINING.test(c)) continue
    const proto = prototypeOf(c)
    if (!LETTER_OR_DIGIT.test(proto)) {
      if (LINE_BREAK.test(c)) gap = 'break'
      else if (WHITESPACE.test(c)) gap = gap === 'break' ? gap : 'space'
      else if (gap === 'none') gap = 'mark'
      continue
    }
    let first = true
    for (const letter of proto) {
      out.push({ letter, gapBefore: out.length === 0 ? 'none' : first ? gap : 'none' })
      first = false
    }
    gap = 'none'
  }
  return out
}

/** The skeleton of a text with every separator removed (`Rο b.l0x` → `roblox`). */
export function skeleton(text: string): string {
  return skeletonLetters(text).map((l) => l.letter).join('')
}

/**
 * A test of whether a text spells `name` (see spellsName), with the name's skeleton worked out once. Linear in the
 * text: each start compares at most the name's length of letters.
 */
export function nameSpeller(name: string): (text: string) => boolean {
  const needle = skeleton(name)
  return (text) => {
    if (needle === '') return false
    const letters = skeletonLetters(text)
    for (let start = 0; start + needle.length <= letters.length; start++) {
      let i = 0
      while (i < needle.length && letters[start + i]!.letter === needle[i]) i++
      if (i < needle.length) continue
      const gaps = letters.slice(start + 1, start + needle.length).map((l) => l.gapBefore)
      if (gaps.every((g) => g === 'none') || gaps.every((g) => g !== 'none')) return true
      if (gaps.some((g) => g === 'break' || g === 'mark')) return true
    }
    return false
  }
}

/**
 * Whether `text` spells `name` to a reader: as one run of letters, spaced or dotted letter by letter, split by
 * punctuation, or split across a line break. Ordinary words that only put a space somewhere inside the name
 * (`Pro Blox`) do not count.
 */
export function spellsName(text: string, name: string): boolean {
  return nameSpeller(name)(text)
}
