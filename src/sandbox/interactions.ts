/*
 * The interactions the sandbox has sent (slash commands, component clicks) and what the bot answered: the REST
 * callback and webhook routes settle them, `/control/commands` and `/control/components` wait on them.
 */
/** The bot's final answer to an interaction, as `/control/commands` and `/control/components` report it. */
export interface InteractionReply {
  type: number
  content: string
  embeds: unknown[]
  components: unknown[]
  flags: number
  message_id: string | null
  /** The files of the answering message (name, size, type: the sandbox keeps no content). */
  attachments?: unknown[]
  custom_id?: string
  title?: string
  choices?: unknown[]
}

/** An interaction the sandbox sent, and what the bot has answered so far. */
export interface InteractionRecord {
  id: string
  token: string
  kind: 'command' | 'component'
  name: string
  userId: string
  guildId: string | null
  channelId: string
  /** The message a component sits on (what type 6 and 7 callbacks edit). */
  sourceMessageId: string | null
  /** Callback type once acknowledged. */
  callbackType: number | null
  /** The `@original` response message id. */
  originalId: string | null
  followupIds: string[]
  final: InteractionReply | null
  createdAt: number
}

/** Interactions by id and token, with waiters for their final reply. */
export interface Interactions {
  /** Starts tracking an interaction. */
  add(record: InteractionRecord): void
  /** The interaction with this id. */
  byId(id: string): InteractionRecord | undefined
  /** The interaction with this token (webhook routes address interactions by token). */
  byToken(token: string): InteractionRecord | undefined
  /** Records the final reply (only the first counts) and wakes waiters. */
  settle(record: InteractionRecord, reply: InteractionReply): void
  /** Resolves with the final reply, or null after `timeoutMs`. */
  wait(record: InteractionRecord, timeoutMs: number): Promise<InteractionReply | null>
  /** Every tracked interaction, oldest first. */
  list(): InteractionRecord[]
  /** Forgets everything and releases waiters with null. */
  clear(): void
}

/** Creates the interaction tracker; keeps at most `capacity` interactions. */
export function createInteractions(capacity = 10_000): Interactions {
  const byId = new Map<string, InteractionRecord>()
  const byToken = new Map<string, InteractionRecord>()
  const waiters = new Map<string, Set<(reply: InteractionReply | null) => void>>()

  return {
    add(record) {
      byId.set(record.id, record)
      byToken.set(record.token, record)
      if (byId.size > capacity) {
        const oldest = byId.values().next().value
        if (oldest) {
          byId.delete(oldest.id)
          byToken.delete(oldest.token)
        }
      }
    },
    byId: (id) => byId.get(id),
    byToken: (token) => byToken.get(token),
    settle(record, reply) {
      if (record.final) return
      record.final = reply
      const set = waiters.get(record.id)
      waiters.delete(record.id)
      for (const wake of set ?? []) wake(reply)
    },
    wait(record, timeoutMs) {
      if (record.final) return Promise.resolve(record.final)
      return new Promise((resolve) => {
        let set = waiters.get(record.id)
        if (!set) {
          set = new Set()
          waiters.set(record.id, set)
        }
        const wake = (reply: InteractionReply | null): void => {
          clearTimeout(timer)
          resolve(reply)
        }
        const timer = setTimeout(() => {
          waiters.get(record.id)?.delete(wake)
          resolve(null)
        }, timeoutMs)
        set.add(wake)
      })
    },
    list: () => [...byId.values()],
    clear() {
      for (const set of waiters.values()) for (const wake of set) wake(null)
      waiters.clear()
      byId.clear()
      byToken.clear()
    },
  }
}
