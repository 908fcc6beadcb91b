/**
 * Push targets: a Roblox universe attached to one of our API keys, with that universe's Open Cloud key stored sealed
 * (src/push/open-cloud-key.ts) in MySQL (mysql/push-target-rows.ts). The operator commands (`push add|list|remove|
 * test`) and the publisher's key loading both go through here; the key in clear exists only in memory, on its way to
 * Open Cloud's `x-api-key` header.
 */
import type { ApiKeyRows } from '../mysql/api-key-rows.js'
import type { PushTargetRows, StoredPushTarget } from '../mysql/push-target-rows.js'
import { keyHint, maskedKey } from './model/open-cloud-key-text.js'
import { TEST_MESSAGE } from './model/push-message.js'
import { createKeySealer, UnreadableKeyError, type KeySealer } from './open-cloud-key.js'
import type { OpenCloudPublish, PublishOutcome } from './open-cloud.js'

/** A target as listed: never its key, only the mask. */
export interface ListedPushTarget {
  keyName: string
  keyRevoked: boolean
  universeId: number
  maskedKey: string
  addedBy: string
  updatedAt: Date
}

/** The key the publisher uses for a universe. */
export interface UniverseKey {
  apiKey: string
  /** Which of our keys the target belongs to (for logs). */
  keyName: string
}

/** What loading the targets found: a key per universe, and the targets whose key did not open. */
export interface LoadedKeys {
  keys: Map<number, UniverseKey>
  unreadable: Array<{ keyName: string; universeId: number; message: string }>
}

/** The other way out of a PUSH_SECRET refusal: stop pushing to the targets whose keys cannot be read. */
export const PUSH_REMOVE_WAY_OUT = 'or stop pushing to them: `presence-link push remove --key NAME --universe ID` for each (`push list` names them), then add them again with `push add` if wanted'

/** The push configuration refused at a worker's start (PUSH_SECRET missing or wrong while targets exist): exit 78. */
export class PushConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PushConfigError'
  }
}

/**
 * The keys a push publisher starts with. Refuses (PushConfigError) when targets are stored but none of their keys
 * opens: PUSH_SECRET is missing, or is not the secret they were added with. Some keys unreadable is not a refusal.
 */
export async function loadKeysAtStart(targets: Pick<PushTargets, 'loadKeys' | 'count'>, secretSet: boolean): Promise<LoadedKeys> {
  const loaded = await targets.loadKeys()
  if (loaded.unreadable.length === 0 || loaded.keys.size > 0) return loaded
  const stored = await targets.count()
  throw new PushConfigError(
    secretSet
      ? `PUSH_SECRET: it opens none of the ${stored} stored Open Cloud keys: it is not the secret they were added with, ${PUSH_REMOVE_WAY_OUT} (${loaded.unreadable[0]!.message})`
      : `PUSH_SECRET: required once any push target exists (${stored} stored; \`presence-link push list\`): set the secret they were added with, ${PUSH_REMOVE_WAY_OUT}`,
  )
}

/** Why a command could not act on a target. */
export type TargetRefusal = 'no_such_key' | 'no_such_target' | 'no_secret'

/** The push target operations. */
export interface PushTargets {
  add(keyName: string, universeId: number, openCloudKey: string, addedBy: string): Promise<{ ok: true; outcome: 'added' | 'replaced'; maskedKey: string } | { ok: false; reason: TargetRefusal }>
  list(): Promise<ListedPushTarget[]>
  remove(keyName: string, universeId: number): Promise<{ ok: true } | { ok: false; reason: TargetRefusal }>
  /** Publishes the test message with the target's key: what Open Cloud answered. Throws UnreadableKeyError. */
  test(keyName: string, universeId: number): Promise<{ ok: true; outcome: PublishOutcome } | { ok: false; reason: TargetRefusal }>
  /** Opens the key of every target of an active API key (the most recently changed wins for a universe on several keys). */
  loadKeys(): Promise<LoadedKeys>
  /** How many targets are stored. */
  count(): Promise<number>
}

/** Creates the operations; `secret` is PUSH_SECRET ('' when unset: adding, testing and loading then refuse). */
export function createPushTargets(deps: { rows: PushTargetRows; apiKeys: Pick<ApiKeyRows, 'findByName'>; secret: string; publish?: OpenCloudPublish }): PushTargets {
  const { rows, apiKeys } = deps
  let sealer: KeySealer | undefined
  const sealerOf = (): KeySealer | undefined => {
    if (deps.secret === '') return undefined
    sealer ??= createKeySealer(deps.secret)
    return sealer
  }
  const activeKeyId = async (name: string): Promise<string | undefined> => (await apiKeys.findByName(name)).find((k) => !k.revoked)?.id
  const open = (s: KeySealer, target: StoredPushTarget) => s.open(target.sealed, { apiKeyId: target.apiKeyId, universeId: target.universeId })

  return {
    async add(keyName, universeId, openCloudKey, addedBy) {
      const s = sealerOf()
      if (s === undefined) return { ok: false, reason: 'no_secret' }
      const apiKeyId = await activeKeyId(keyName)
      if (apiKeyId === undefined) return { ok: false, reason: 'no_such_key' }
      const hint = keyHint(openCloudKey)
      const outcome = await rows.put({ apiKeyId, universeId, sealed: s.seal(openCloudKey, { apiKeyId, universeId }), hint, addedBy })
      return { ok: true, outcome, maskedKey: maskedKey(hint) }
    },
    async list() {
      return (await rows.list()).map((t) => ({
        keyName: t.keyName,
        keyRevoked: t.keyRevoked,
        universeId: t.universeId,
        maskedKey: maskedKey(t.hint),
        addedBy: t.addedBy,
        updatedAt: t.updatedAt,
      }))
    },
    async remove(keyName, universeId) {
      const apiKeyId = await activeKeyId(keyName)
      // A revoked key's targets can be removed too: look through every key of that name.
      const ids = apiKeyId !== undefined ? [apiKeyId] : (await apiKeys.findByName(keyName)).map((k) => k.id)
      if (ids.length === 0) return { ok: false, reason: 'no_such_key' }
      for (const id of ids) if (await rows.remove(id, universeId)) return { ok: true }
      return { ok: false, reason: 'no_such_target' }
    },
    async test(keyName, universeId) {
      const s = sealerOf()
      if (s === undefined) return { ok: false, reason: 'no_secret' }
      const apiKeyId = await activeKeyId(keyName)
      if (apiKeyId === undefined) return { ok: false, reason: 'no_such_key' }
      const target = await rows.find(apiKeyId, universeId)
      if (target === undefined) return { ok: false, reason: 'no_such_target' }
      if (deps.publish === undefined) throw new Error('push test needs the Open Cloud client')
      return { ok: true, outcome: await deps.publish(universeId, open(s, target), TEST_MESSAGE) }
    },
    async loadKeys() {
      const keys = new Map<number, UniverseKey>()
      const unreadable: LoadedKeys['unreadable'] = []
      const all = (await rows.list()).filter((t) => !t.keyRevoked).sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
      if (all.length === 0) return { keys, unreadable }
      const s = sealerOf()
      for (const target of all) {
        if (s === undefined) {
          unreadable.push({ keyName: target.keyName, universeId: target.universeId, message: 'PUSH_SECRET is not set: required once any push target exists' })
          continue
        }
        try {
          keys.set(target.universeId, { apiKey: open(s, target), keyName: target.keyName })
        } catch (err) {
          if (!(err instanceof UnreadableKeyError)) throw err
          unreadable.push({ keyName: target.keyName, universeId: target.universeId, message: err.message })
        }
      }
      return { keys, unreadable }
    },
    count: () => rows.count(),
  }
}
