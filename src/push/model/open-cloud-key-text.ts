/**
 * An Open Cloud API key as an operator hands it over (pure): read from a file, checked for shape, and the only form
 * of it ever shown (`push list`): four asterisks and its last four characters.
 */

/** Longest key file content accepted (Roblox's keys are a few hundred characters). */
export const MAX_KEY_LENGTH = 8192

/** The key in a key file's text (surrounding whitespace and one trailing newline ignored), or why it is refused. */
export function readKeyText(text: string): { ok: true; key: string } | { ok: false; message: string } {
  const key = text.trim()
  if (key === '') return { ok: false, message: 'the key file is empty' }
  if (key.length > MAX_KEY_LENGTH) return { ok: false, message: `the key file holds ${key.length} characters; an Open Cloud key is at most ${MAX_KEY_LENGTH}` }
  if (!/^[\x21-\x7e]+$/.test(key)) return { ok: false, message: 'the key file must hold one Open Cloud API key: visible ASCII characters on one line, nothing else' }
  if (key.length < 16) return { ok: false, message: 'the key file holds fewer than 16 characters: that is not an Open Cloud API key' }
  return { ok: true, key }
}

/** The last characters of a key, kept in clear beside its ciphertext so `push list` can tell keys apart. */
export function keyHint(key: string): string {
  return key.slice(-4)
}

/** How a key is shown: `****` and its hint. */
export function maskedKey(hint: string): string {
  return `****${hint}`
}
