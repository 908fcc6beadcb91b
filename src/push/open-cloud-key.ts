/**
 * Open Cloud keys at rest: AES-256-GCM with a fresh 12-byte nonce for every seal, under a key derived from
 * PUSH_SECRET (HKDF-SHA256), and bound to the target it belongs to (API key id and universe as additional data), so a
 * ciphertext copied onto another target's row does not open. What MySQL holds (push_targets) is the ciphertext, the
 * nonce, the tag and a four-character hint; never the key.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/** A sealed key as stored. */
export interface SealedKey {
  ciphertext: Buffer
  nonce: Buffer
  tag: Buffer
}

/** Which target a key belongs to (the additional authenticated data). */
export interface TargetId {
  apiKeyId: string
  universeId: number
}

const INFO = Buffer.from('presence-link push target key v1')
const SALT = Buffer.from('presence-link')

/** Refused to open: the secret is not the one the key was sealed with, or the row was altered. */
export class UnreadableKeyError extends Error {
  constructor(target: TargetId) {
    super(
      `PUSH_SECRET cannot decrypt the Open Cloud key of universe ${target.universeId}: it is not the secret the key was stored with ` +
        '(or the stored row was altered). Set the PUSH_SECRET it was added with, add the key again with `presence-link push add`, ' +
        'or stop pushing to it with `presence-link push remove`',
    )
    this.name = 'UnreadableKeyError'
  }
}

/** Seals and opens Open Cloud keys with one PUSH_SECRET. */
export interface KeySealer {
  seal(key: string, target: TargetId): SealedKey
  /** The key; throws UnreadableKeyError when it does not open. */
  open(sealed: SealedKey, target: TargetId): string
}

function aadOf(target: TargetId): Buffer {
  return Buffer.from(`${target.apiKeyId}|${target.universeId}`)
}

/** A sealer for `secret` (PUSH_SECRET, at least 32 characters, as the configuration checks). */
export function createKeySealer(secret: string, random: (size: number) => Buffer = randomBytes): KeySealer {
  if (secret.length < 32) throw new Error('PUSH_SECRET is not set (or shorter than 32 characters): push targets need it to store and read Open Cloud keys')
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, INFO, 32))
  return {
    seal(plain, target) {
      const nonce = random(12)
      const cipher = createCipheriv('aes-256-gcm', key, nonce)
      cipher.setAAD(aadOf(target))
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return { ciphertext, nonce, tag: cipher.getAuthTag() }
    },
    open(sealed, target) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce)
        decipher.setAAD(aadOf(target))
        decipher.setAuthTag(sealed.tag)
        return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8')
      } catch {
        throw new UnreadableKeyError(target)
      }
    },
  }
}
