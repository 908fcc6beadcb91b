/*
 * GUILD_MEMBERS_CHUNK payloads for a gateway REQUEST_GUILD_MEMBERS (op 8): discord.js `guild.members.fetch()` by ids
 * or by name prefix, in chunks of 1,000 with `not_found`, `nonce` and (with the presences intent) online presences.
 */
import type { GuildRecord, MemberRecord } from '../world-records.js'
import type { World } from '../world.js'
import { memberPayload } from '../payloads.js'
import { presencePayload } from './dispatch-payloads.js'
import { MEMBERS_PER_CHUNK } from './gateway-codes.js'

/** The chunks answering one guild of a member request `d` (op 8 payload), built one at a time as they are sent. */
export function* memberChunks(world: World, guild: GuildRecord, d: Record<string, unknown>, withPresences: boolean): Generator<Record<string, unknown>> {
  let members: MemberRecord[]
  let notFound: string[] | null = null
  if (d.user_ids !== undefined && d.user_ids !== null) {
    const ids = (Array.isArray(d.user_ids) ? d.user_ids : [d.user_ids]).map(String)
    members = ids.flatMap((id) => {
      const m = guild.members.get(id)
      return m ? [m] : []
    })
    notFound = ids.filter((id) => !guild.members.has(id))
  } else {
    const query = typeof d.query === 'string' ? d.query.toLowerCase() : ''
    const limit = typeof d.limit === 'number' && d.limit > 0 ? d.limit : Number.POSITIVE_INFINITY
    members = []
    for (const m of guild.members.values()) {
      if (members.length >= limit) break
      if (query === '') {
        members.push(m)
        continue
      }
      const user = world.users.get(m.userId)
      const names = [user?.username, user?.globalName, m.nick].filter((n): n is string => typeof n === 'string')
      if (names.some((n) => n.toLowerCase().startsWith(query))) members.push(m)
    }
  }
  const chunkCount = Math.max(1, Math.ceil(members.length / MEMBERS_PER_CHUNK))
  for (let index = 0; index < chunkCount; index++) {
    const slice = members.slice(index * MEMBERS_PER_CHUNK, (index + 1) * MEMBERS_PER_CHUNK)
    const chunk: Record<string, unknown> = {
      guild_id: guild.id,
      members: slice.map((m) => memberPayload(world, m)),
      chunk_index: index,
      chunk_count: chunkCount,
    }
    if (withPresences) {
      chunk.presences = slice.flatMap((m) => {
        const p = world.presences.get(m.userId)
        return p && p.status !== 'offline' ? [presencePayload(m.userId, p)] : []
      })
    }
    if (notFound && index === 0 && notFound.length > 0) chunk.not_found = notFound
    if (typeof d.nonce === 'string') chunk.nonce = d.nonce
    yield chunk
  }
}
