import t from 'tap'
import { createKeySealer, UnreadableKeyError } from '../../src/push/open-cloud-key.js'

const SECRET = 'a'.repeat(64)
const KEY = 'rbx-open-cloud-key-0123456789abcdefghijklmnopqrstuvwxyz'
const target = { apiKeyId: 'abcdefghijkl', universeId: 4567 }

t.test('a sealed key is not the key, opens with the same secret and target, and gets a fresh nonce every time', async (t) => {
  const sealer = createKeySealer(SECRET)
  const a = sealer.seal(KEY, target)
  const b = sealer.seal(KEY, target)
  t.equal(a.nonce.length, 12)
  t.equal(a.tag.length, 16)
  t.not(a.nonce.toString('hex'), b.nonce.toString('hex'), 'fresh nonce')
  t.not(a.ciphertext.toString('hex'), b.ciphertext.toString('hex'))
  t.notOk(a.ciphertext.includes(Buffer.from(KEY)), 'the ciphertext does not hold the key')
  t.notOk(a.ciphertext.includes(Buffer.from(KEY.slice(0, 16))))
  t.equal(sealer.open(a, target), KEY)
  t.equal(createKeySealer(SECRET).open(b, target), KEY, 'another sealer with the same secret')
})

t.test('a wrong secret cannot open it, and says so clearly', async (t) => {
  const sealed = createKeySealer(SECRET).seal(KEY, target)
  t.throws(() => createKeySealer('b'.repeat(64)).open(sealed, target), UnreadableKeyError)
  t.throws(() => createKeySealer('b'.repeat(64)).open(sealed, target), {
    message: /^PUSH_SECRET cannot decrypt the Open Cloud key of universe 4567: it is not the secret the key was stored with/,
  })
})

t.test('a ciphertext moved to another target, or altered, does not open', async (t) => {
  const sealer = createKeySealer(SECRET)
  const sealed = sealer.seal(KEY, target)
  t.throws(() => sealer.open(sealed, { ...target, universeId: 4568 }), UnreadableKeyError)
  t.throws(() => sealer.open(sealed, { ...target, apiKeyId: 'zzzzzzzzzzzz' }), UnreadableKeyError)
  const flipped = Buffer.from(sealed.ciphertext)
  flipped[0] = flipped[0]! ^ 1
  t.throws(() => sealer.open({ ...sealed, ciphertext: flipped }, target), UnreadableKeyError)
})

t.test('no secret, no sealer', async (t) => {
  t.throws(() => createKeySealer(''), /PUSH_SECRET is not set/)
  t.throws(() => createKeySealer('short'), /PUSH_SECRET/)
})
