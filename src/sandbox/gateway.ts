import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import { guildCreatePayload, memberPayload, presencePayload, userPayload } from './payloads.js'
import { shardForGuild } from './snowflakes.js'
import type { MemberRecord, World } from './world.js'

/** Gateway intent bits the sandbox honours. */
export const Intent = {
  guilds: 1 << 0,
  guildMembers: 1 << 1,
  guildModeration: 1 << 2,
  guildPresences: 1 << 8,
  guildMessages: 1 << 9,
  guildMessageReactions: 1 << 10,
  guildMessageTyping: 1 << 11,
  directMessages: 1 << 12,
  directMessageReactions: 1 << 13,
  directMessageTyping: 1 << 14,
  messageContent: 1 << 15,
} as const

/** Gateway opcodes. */
export const Op = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  presenceUpdate: 3,
  voiceStateUpdate: 4,
  resume: 6,
  reconnect: 7,
  requestGuildMembers: 8,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const

/** Gateway close codes the sandbox sends. */
export const CloseCode = {
  unknownError: 4000,
  unknownOpcode: 4001,
  decodeError: 4002,
  notAuthenticated: 4003,
  authenticationFailed: 4004,
  alreadyAuthenticated: 4005,
  invalidShard: 4010,
  invalidApiVersion: 4012,
  invalidIntents: 4013,
} as const

/** Heartbeat interval announced in HELLO, as Discord does. */
export const HEARTBEAT_INTERVAL_MS = 41250

/** Members per GUILD_MEMBERS_CHUNK, as Discord sends them. */
export const MEMBERS_PER_CHUNK = 1000

// After these close codes Discord forgets the session, so a RESUME would fail.
const SESSION_ENDING_CODES = new Set([1000, 1001, 4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014])

/** Where a dispatch goes: the shard owning `guildId`, an explicit shard, or shard 0 when neither is given (DMs). */
export interface DispatchTarget {
  guildId?: string | null
  shard?: number
}

/** How many sessions a dispatch was queued on, and the shard id of each. */
export interface DispatchResult {
  sent: number
  shards: number[]
}

/** One shard as `GET /control/state` reports it. */
export interface ShardState {
  id: number
  connected: boolean
  sessionId: string | null
  seq: number
}

/** How `disconnect` ends a shard's connection. */
export interface DisconnectHow {
  code?: number
  invalidate?: boolean
  reconnect?: boolean
}

/** Settings for {@link createGateway}. */
export interface GatewayOptions {
  world: World
  shardCount: number
  acceptsToken: (token: string) => boolean
  gatewayUrl: () => string
  randomHex: (bytes: number) => string
  log: (msg: string, fields?: object) => void
  /** Dispatches kept per session for RESUME. */
  bufferSize?: number
  /** How long a disconnected session stays resumable. */
  resumeWindowMs?: number
}

/** The fake Discord gateway: sessions, sequence numbers, routing by shard and intents, RESUME. */
export interface Gateway {
  /** Takes over an HTTP upgrade request (any path). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  /** Sends a dispatch event to every session that should get it; sessions that are disconnected buffer it for RESUME. */
  dispatch(t: string, d: unknown, target: DispatchTarget): DispatchResult
  /** True when some live or resumable session would receive a dispatch for the target. */
  hasSessionFor(target: DispatchTarget): boolean
  /** Ends the connections of a shard's sessions; returns how many were ended. */
  disconnect(shard: number, how: DisconnectHow): number
  /** State of shards 0..shardCount-1. */
  shards(): ShardState[]
  /** Closes every socket and forgets every session. */
  close(): void
}

interface BufferedFrame {
  seq: number
  frame: string
}

interface Session {
  id: string
  shardId: number
  shardCount: number
  intents: number
  seq: number
  buffer: BufferedFrame[]
  socket: WebSocket | null
  expiry: NodeJS.Timeout | null
  order: number
}

interface Connection {
  socket: WebSocket
  session: Session | null
}

const MESSAGE_EVENTS = new Set(['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK'])

/** The intent an event needs, or null when it is always sent (READY, INTERACTION_CREATE, chunks, ...). */
export function requiredIntent(t: string, inGuild: boolean): number | null {
  if (MESSAGE_EVENTS.has(t)) return inGuild ? Intent.guildMessages : Intent.directMessages
  if (t.startsWith('MESSAGE_REACTION_')) return inGuild ? Intent.guildMessageReactions : Intent.directMessageReactions
  if (t === 'TYPING_START') return inGuild ? Intent.guildMessageTyping : Intent.directMessageTyping
  if (t === 'PRESENCE_UPDATE') return Intent.guildPresences
  if (t.startsWith('GUILD_MEMBER_') || t === 'THREAD_MEMBERS_UPDATE') return Intent.guildMembers
  if (t.startsWith('GUILD_BAN_') || t === 'GUILD_AUDIT_LOG_ENTRY_CREATE') return Intent.guildModeration
  if (t.startsWith('GUILD_ROLE_') || t.startsWith('CHANNEL_') || t.startsWith('THREAD_')) return Intent.guilds
  if (t === 'GUILD_CREATE' || t === 'GUILD_UPDATE' || t === 'GUILD_DELETE') return Intent.guilds
  return null
}

/** Discord's blanking without MESSAGE_CONTENT: guild messages not by the bot and not mentioning it lose their content. */
function needsBlanking(t: string, d: unknown, botUserId: string): boolean {
  if (t !== 'MESSAGE_CREATE' && t !== 'MESSAGE_UPDATE') return false
  if (typeof d !== 'object' || d === null) return false
  const msg = d as { guild_id?: unknown; author?: { id?: unknown }; mentions?: Array<{ id?: unknown }> }
  if (typeof msg.guild_id !== 'string') return false
  if (msg.author?.id === botUserId) return false
  if (Array.isArray(msg.mentions) && msg.mentions.some((m) => m?.id === botUserId)) return false
  return true
}

function blanked(d: unknown): unknown {
  const copy = { ...(d as Record<string, unknown>) }
  if ('content' in copy) copy.content = ''
  if ('embeds' in copy) copy.embeds = []
  if ('attachments' in copy) copy.attachments = []
  if ('components' in copy) copy.components = []
  if ('poll' in copy) delete copy.poll
  return copy
}

function frameOf(op: number, d: unknown): string {
  return JSON.stringify({ op, d, s: null, t: null })
}

/** Creates the gateway; sockets arrive through `handleUpgrade`. */
export function createGateway(options: GatewayOptions): Gateway {
  const { world, log } = options
  const bufferSize = options.bufferSize ?? 1000
  const resumeWindowMs = options.resumeWindowMs ?? 120_000
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 })
  const sessions = new Map<string, Session>()
  const connections = new Set<Connection>()
  let sessionOrder = 0

  const ownsGuild = (session: Session, guildId: string): boolean =>
    shardForGuild(guildId, session.shardCount) === session.shardId

  const targets = (target: DispatchTarget): Session[] => {
    const all = [...sessions.values()]
    if (target.shard !== undefined) return all.filter((s) => s.shardId === target.shard)
    const guildId = target.guildId
    if (typeof guildId === 'string' && guildId !== '') return all.filter((s) => ownsGuild(s, guildId))
    return all.filter((s) => s.shardId === 0)
  }

  const send = (socket: WebSocket | null, frame: string): void => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(frame)
  }

  const sendDispatch = (session: Session, t: string, dJson: string): void => {
    session.seq += 1
    const frame = `{"op":0,"t":${JSON.stringify(t)},"s":${session.seq},"d":${dJson}}`
    session.buffer.push({ seq: session.seq, frame })
    if (session.buffer.length > bufferSize) session.buffer.shift()
    send(session.socket, frame)
  }

  const forget = (session: Session): void => {
    if (session.expiry) clearTimeout(session.expiry)
    sessions.delete(session.id)
  }

  const detach = (session: Session, code: number): void => {
    session.socket = null
    if (SESSION_ENDING_CODES.has(code)) {
      forget(session)
      return
    }
    if (session.expiry) clearTimeout(session.expiry)
    session.expiry = setTimeout(() => forget(session), resumeWindowMs)
    session.expiry.unref()
  }

  const attach = (conn: Connection, session: Session): void => {
    if (session.expiry) clearTimeout(session.expiry)
    session.expiry = null
    const previous = session.socket
    session.socket = conn.socket
    conn.session = session
    // Discord drops the older connection when a session is resumed elsewhere.
    if (previous && previous !== conn.socket && previous.readyState === WebSocket.OPEN) previous.close(CloseCode.unknownError)
  }

  const identify = (conn: Connection, d: Record<string, unknown>): void => {
    if (conn.session) return conn.socket.close(CloseCode.alreadyAuthenticated, 'Already authenticated.')
    const token = typeof d.token === 'string' ? d.token.replace(/^Bot /, '') : ''
    if (!options.acceptsToken(token)) return conn.socket.close(CloseCode.authenticationFailed, 'Authentication failed.')
    if (typeof d.intents !== 'number' || !Number.isInteger(d.intents) || d.intents < 0) {
      return conn.socket.close(CloseCode.invalidIntents, 'Invalid intent(s).')
    }
    const shard = Array.isArray(d.shard) ? d.shard : [0, 1]
    const [shardId, shardCount] = shard
    if (
      typeof shardId !== 'number' ||
      typeof shardCount !== 'number' ||
      !Number.isInteger(shardId) ||
      !Number.isInteger(shardCount) ||
      shardCount < 1 ||
      shardId < 0 ||
      shardId >= shardCount
    ) {
      return conn.socket.close(CloseCode.invalidShard, 'Invalid shard.')
    }
    const session: Session = {
      id: options.randomHex(16),
      shardId,
      shardCount,
      intents: d.intents,
      seq: 0,
      buffer: [],
      socket: null,
      expiry: null,
      order: ++sessionOrder,
    }
    sessions.set(session.id, session)
    attach(conn, session)
    const owned = [...world.guilds.values()].filter((g) => ownsGuild(session, g.id))
    const bot = world.users.get(world.botUserId)
    const ready = {
      v: 10,
      user: bot ? { ...userPayload(bot), verified: true, mfa_enabled: false, email: null } : null,
      guilds: owned.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: options.gatewayUrl(),
      shard: [shardId, shardCount],
      application: { id: world.applicationId, flags: 0 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
      _trace: ['["presence-link-sandbox",{"micros":0}]'],
    }
    log('gateway identify', { session: session.id, shard: [shardId, shardCount], intents: session.intents, guilds: owned.length })
    sendDispatch(session, 'READY', JSON.stringify(ready))
    const withPresences = (session.intents & Intent.guildPresences) !== 0
    for (const guild of owned) sendDispatch(session, 'GUILD_CREATE', JSON.stringify(guildCreatePayload(world, guild, withPresences)))
  }

  const resume = (conn: Connection, d: Record<string, unknown>): void => {
    if (conn.session) return conn.socket.close(CloseCode.alreadyAuthenticated, 'Already authenticated.')
    const token = typeof d.token === 'string' ? d.token.replace(/^Bot /, '') : ''
    const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined
    const seq = typeof d.seq === 'number' ? d.seq : -1
    const oldest = session?.buffer[0]?.seq ?? (session ? session.seq + 1 : 0)
    // Events after `seq` that already fell out of the bounded buffer cannot be replayed: Discord invalidates then.
    if (!options.acceptsToken(token) || !session || seq < oldest - 1 || seq > session.seq) {
      log('gateway resume refused', { session: d.session_id, seq })
      send(conn.socket, frameOf(Op.invalidSession, false))
      return
    }
    attach(conn, session)
    const replay = session.buffer.filter((f) => f.seq > seq)
    for (const f of replay) send(conn.socket, f.frame)
    log('gateway resume', { session: session.id, shard: session.shardId, from: seq, replayed: replay.length })
    sendDispatch(session, 'RESUMED', JSON.stringify({ _trace: ['["presence-link-sandbox",{"micros":0}]'] }))
  }

  const requestMembers = (session: Session, d: Record<string, unknown>): void => {
    const guildIds = Array.isArray(d.guild_id) ? d.guild_id : [d.guild_id]
    for (const guildId of guildIds) {
      if (typeof guildId !== 'string') continue
      const guild = world.guilds.get(guildId)
      if (!guild || !ownsGuild(session, guildId)) continue
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
      const withPresences = d.presences === true && (session.intents & Intent.guildPresences) !== 0
      const chunkCount = Math.max(1, Math.ceil(members.length / MEMBERS_PER_CHUNK))
      for (let index = 0; index < chunkCount; index++) {
        const slice = members.slice(index * MEMBERS_PER_CHUNK, (index + 1) * MEMBERS_PER_CHUNK)
        const chunk: Record<string, unknown> = {
          guild_id: guildId,
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
        sendDispatch(session, 'GUILD_MEMBERS_CHUNK', JSON.stringify(chunk))
      }
    }
  }

  const onMessage = (conn: Connection, data: RawData): void => {
    let payload: { op?: unknown; d?: unknown }
    try {
      payload = JSON.parse(data.toString()) as { op?: unknown; d?: unknown }
    } catch {
      conn.socket.close(CloseCode.decodeError, 'Error while decoding payload.')
      return
    }
    const d = typeof payload.d === 'object' && payload.d !== null ? (payload.d as Record<string, unknown>) : {}
    switch (payload.op) {
      case Op.heartbeat:
        send(conn.socket, frameOf(Op.heartbeatAck, null))
        return
      case Op.identify:
        identify(conn, d)
        return
      case Op.resume:
        resume(conn, d)
        return
      case Op.requestGuildMembers:
        if (!conn.session) return conn.socket.close(CloseCode.notAuthenticated, 'Not authenticated.')
        requestMembers(conn.session, d)
        return
      case Op.presenceUpdate:
      case Op.voiceStateUpdate:
        if (!conn.session) return conn.socket.close(CloseCode.notAuthenticated, 'Not authenticated.')
        return
      default:
        conn.socket.close(CloseCode.unknownOpcode, 'Unknown opcode.')
    }
  }

  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'ws://sandbox')
    const version = url.searchParams.get('v')
    const encoding = url.searchParams.get('encoding')
    const conn: Connection = { socket, session: null }
    connections.add(conn)
    socket.on('message', (data) => onMessage(conn, data))
    socket.on('close', (code) => {
      connections.delete(conn)
      if (conn.session && conn.session.socket === socket) detach(conn.session, code)
    })
    socket.on('error', (err) => log('gateway socket error', { error: err.message }))
    if (version !== null && version !== '10' && version !== '9') {
      socket.close(CloseCode.invalidApiVersion, 'Invalid API version.')
      return
    }
    if (encoding !== null && encoding !== 'json') {
      socket.close(CloseCode.decodeError, 'Only encoding=json is supported by the sandbox.')
      return
    }
    send(socket, frameOf(Op.hello, { heartbeat_interval: HEARTBEAT_INTERVAL_MS, _trace: ['["presence-link-sandbox",{"micros":0}]'] }))
  })

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
    },

    dispatch(t, d, target) {
      const inGuild = typeof target.guildId === 'string' && target.guildId !== ''
      const intent = requiredIntent(t, inGuild)
      const blankable = needsBlanking(t, d, world.botUserId)
      let full: string | null = null
      let blank: string | null = null
      const result: DispatchResult = { sent: 0, shards: [] }
      for (const session of targets(target)) {
        if (intent !== null && (session.intents & intent) === 0) continue
        if (blankable && (session.intents & Intent.messageContent) === 0) {
          blank ??= JSON.stringify(blanked(d))
          sendDispatch(session, t, blank)
        } else {
          full ??= JSON.stringify(d)
          sendDispatch(session, t, full)
        }
        result.sent++
        result.shards.push(session.shardId)
      }
      return result
    },

    hasSessionFor(target) {
      return targets(target).length > 0
    },

    disconnect(shard, how) {
      let ended = 0
      for (const session of [...sessions.values()]) {
        if (session.shardId !== shard) continue
        const socket = session.socket
        if (how.invalidate) {
          forget(session)
          send(socket, frameOf(Op.invalidSession, false))
          ended++
          continue
        }
        if (!socket) continue
        if (how.reconnect) {
          send(socket, frameOf(Op.reconnect, null))
        } else {
          const code = how.code ?? CloseCode.unknownError
          detach(session, code)
          socket.close(code, 'Closed by the sandbox control API.')
        }
        ended++
      }
      log('gateway disconnect', { shard, ...how, ended })
      return ended
    },

    shards() {
      const out: ShardState[] = []
      for (let id = 0; id < options.shardCount; id++) {
        const candidates = [...sessions.values()].filter((s) => s.shardId === id)
        const best =
          candidates.filter((s) => s.socket?.readyState === WebSocket.OPEN).sort((a, b) => b.order - a.order)[0] ??
          candidates.sort((a, b) => b.order - a.order)[0]
        out.push({
          id,
          connected: best?.socket?.readyState === WebSocket.OPEN,
          sessionId: best?.id ?? null,
          seq: best?.seq ?? 0,
        })
      }
      return out
    },

    close() {
      for (const session of sessions.values()) if (session.expiry) clearTimeout(session.expiry)
      sessions.clear()
      for (const conn of connections) conn.socket.terminate()
      connections.clear()
      wss.close()
    },
  }
}
