/*
 * The fake Discord gateway (WebSocket, JSON encoding, no compression) that a real discord.js client logs in to: HELLO,
 * IDENTIFY (READY then one GUILD_CREATE per guild of the shard), heartbeat ACKs, RESUME with replay of missed events,
 * REQUEST_GUILD_MEMBERS, routing of dispatches by shard `(guild_id >> 22) % shard_count` and intents, and the
 * disconnects the control API asks for (close codes, op 9 invalid session, op 7 reconnect). IDENTIFY is refused as
 * Discord refuses it: a token the Developer Portal settings do not accept closes with 4004, a privileged intent they
 * do not switch on with 4014.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import { shardForGuild } from '../snowflakes.js'
import type { World } from '../world.js'
import { blanked, needsBlanking, requiredIntent } from './dispatch-rules.js'
import { guildCreatePayload, readyPayload } from './dispatch-payloads.js'
import type { DeveloperPortal } from './developer-portal.js'
import { CloseCode, HEARTBEAT_INTERVAL_MS, Intent, Op, SESSION_ENDING_CODES } from './gateway-codes.js'
import { memberChunks } from './member-chunks.js'

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
  /** The application's token and privileged intent settings. */
  portal: DeveloperPortal
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
  /** The Developer Portal settings IDENTIFY and RESUME are checked against. */
  readonly portal: DeveloperPortal
  /** Takes over an HTTP upgrade request (any path). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  /** Sends a dispatch event to every session that should get it; sessions that are disconnected buffer it for RESUME. */
  dispatch(t: string, d: unknown, target: DispatchTarget): DispatchResult
  /** Runs `action` once, right after the member chunks answering the next member request for `guildId` are sent. */
  afterMemberChunks(guildId: string, action: () => void): void
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

/** What the gateway's functions share: its settings, its sessions and connections, and the waiters on member chunks. */
interface GatewayState {
  options: GatewayOptions
  world: World
  portal: DeveloperPortal
  log: GatewayOptions['log']
  bufferSize: number
  resumeWindowMs: number
  sessions: Map<string, Session>
  connections: Set<Connection>
  afterChunks: Map<string, Array<() => void>>
  /** Counts sessions made, so `shards()` can prefer the newest. */
  sessionOrder: number
}

function frameOf(op: number, d: unknown): string {
  return JSON.stringify({ op, d, s: null, t: null })
}

const ownsGuild = (session: Session, guildId: string): boolean => shardForGuild(guildId, session.shardCount) === session.shardId

/** The sessions a dispatch for `target` goes to. */
function targets(state: GatewayState, target: DispatchTarget): Session[] {
  const all = [...state.sessions.values()]
  if (target.shard !== undefined) return all.filter((s) => s.shardId === target.shard)
  const guildId = target.guildId
  if (typeof guildId === 'string' && guildId !== '') return all.filter((s) => ownsGuild(s, guildId))
  return all.filter((s) => s.shardId === 0)
}

function send(socket: WebSocket | null, frame: string): void {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(frame)
}

/** Numbers a dispatch, keeps it in the session's bounded buffer for RESUME and sends it if the session is connected. */
function sendDispatch(state: GatewayState, session: Session, t: string, dJson: string): void {
  session.seq += 1
  const frame = `{"op":0,"t":${JSON.stringify(t)},"s":${session.seq},"d":${dJson}}`
  session.buffer.push({ seq: session.seq, frame })
  if (session.buffer.length > state.bufferSize) session.buffer.shift()
  send(session.socket, frame)
}

function forget(state: GatewayState, session: Session): void {
  if (session.expiry) clearTimeout(session.expiry)
  state.sessions.delete(session.id)
}

/** A session whose socket closed: forgotten on a session-ending code, else resumable for the resume window. */
function detach(state: GatewayState, session: Session, code: number): void {
  session.socket = null
  if (SESSION_ENDING_CODES.has(code)) {
    forget(state, session)
    return
  }
  if (session.expiry) clearTimeout(session.expiry)
  session.expiry = setTimeout(() => forget(state, session), state.resumeWindowMs)
  session.expiry.unref()
}

function attach(conn: Connection, session: Session): void {
  if (session.expiry) clearTimeout(session.expiry)
  session.expiry = null
  const previous = session.socket
  session.socket = conn.socket
  conn.session = session
  // Discord drops the older connection when a session is resumed elsewhere.
  if (previous && previous !== conn.socket && previous.readyState === WebSocket.OPEN) previous.close(CloseCode.unknownError)
}

/** Op 2: checks token, intents and shard as Discord does, then READY and one GUILD_CREATE per guild of the shard. */
function identify(state: GatewayState, conn: Connection, d: Record<string, unknown>): void {
  const { world, log, portal, options } = state
  if (conn.session) return conn.socket.close(CloseCode.alreadyAuthenticated, 'Already authenticated.')
  const token = typeof d.token === 'string' ? d.token.replace(/^Bot /, '') : ''
  if (!portal.acceptsToken(token)) {
    log('gateway identify refused', { code: CloseCode.authenticationFailed })
    return conn.socket.close(CloseCode.authenticationFailed, 'Authentication failed.')
  }
  if (typeof d.intents !== 'number' || !Number.isInteger(d.intents) || d.intents < 0) {
    return conn.socket.close(CloseCode.invalidIntents, 'Invalid intent(s).')
  }
  const disallowed = portal.disallowedIntents(d.intents)
  if (disallowed !== 0) {
    log('gateway identify refused', { code: CloseCode.disallowedIntents, intents: d.intents, disallowed })
    return conn.socket.close(CloseCode.disallowedIntents, 'Disallowed intent(s).')
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
    order: ++state.sessionOrder,
  }
  state.sessions.set(session.id, session)
  attach(conn, session)
  const owned = [...world.guilds.values()].filter((g) => ownsGuild(session, g.id))
  const ready = readyPayload(world, { sessionId: session.id, shard: [shardId, shardCount], guilds: owned, resumeGatewayUrl: options.gatewayUrl() })
  log('gateway identify', { session: session.id, shard: [shardId, shardCount], intents: session.intents, guilds: owned.length })
  sendDispatch(state, session, 'READY', JSON.stringify(ready))
  const withPresences = (session.intents & Intent.guildPresences) !== 0
  for (const guild of owned) sendDispatch(state, session, 'GUILD_CREATE', JSON.stringify(guildCreatePayload(world, guild, withPresences)))
}

/** Op 6: replays the missed events and sends RESUMED, or answers op 9 when the session cannot be resumed. */
function resume(state: GatewayState, conn: Connection, d: Record<string, unknown>): void {
  const { log, portal } = state
  if (conn.session) return conn.socket.close(CloseCode.alreadyAuthenticated, 'Already authenticated.')
  const token = typeof d.token === 'string' ? d.token.replace(/^Bot /, '') : ''
  const session = typeof d.session_id === 'string' ? state.sessions.get(d.session_id) : undefined
  const seq = typeof d.seq === 'number' ? d.seq : -1
  const oldest = session?.buffer[0]?.seq ?? (session ? session.seq + 1 : 0)
  // Events after `seq` that already fell out of the bounded buffer cannot be replayed: Discord invalidates then.
  if (!portal.acceptsToken(token) || !session || seq < oldest - 1 || seq > session.seq) {
    log('gateway resume refused', { session: d.session_id, seq })
    send(conn.socket, frameOf(Op.invalidSession, false))
    return
  }
  attach(conn, session)
  const replay = session.buffer.filter((f) => f.seq > seq)
  for (const f of replay) send(conn.socket, f.frame)
  log('gateway resume', { session: session.id, shard: session.shardId, from: seq, replayed: replay.length })
  sendDispatch(state, session, 'RESUMED', JSON.stringify({ _trace: ['["presence-link-sandbox",{"micros":0}]'] }))
}

/** Op 8: the member chunks of each requested guild the session's shard owns, then that guild's waiting actions. */
function requestMembers(state: GatewayState, session: Session, d: Record<string, unknown>): void {
  const { world, afterChunks } = state
  const guildIds = Array.isArray(d.guild_id) ? d.guild_id : [d.guild_id]
  const withPresences = d.presences === true && (session.intents & Intent.guildPresences) !== 0
  for (const guildId of guildIds) {
    if (typeof guildId !== 'string') continue
    const guild = world.guilds.get(guildId)
    if (!guild || !ownsGuild(session, guildId)) continue
    for (const chunk of memberChunks(world, guild, d, withPresences)) sendDispatch(state, session, 'GUILD_MEMBERS_CHUNK', JSON.stringify(chunk))
    const actions = afterChunks.get(guildId)
    afterChunks.delete(guildId)
    for (const action of actions ?? []) action()
  }
}

function onMessage(state: GatewayState, conn: Connection, data: RawData): void {
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
      identify(state, conn, d)
      return
    case Op.resume:
      resume(state, conn, d)
      return
    case Op.requestGuildMembers:
      if (!conn.session) return conn.socket.close(CloseCode.notAuthenticated, 'Not authenticated.')
      requestMembers(state, conn.session, d)
      return
    case Op.presenceUpdate:
    case Op.voiceStateUpdate:
      if (!conn.session) return conn.socket.close(CloseCode.notAuthenticated, 'Not authenticated.')
      return
    default:
      conn.socket.close(CloseCode.unknownOpcode, 'Unknown opcode.')
  }
}

/** A new socket: refused on an unknown API version or encoding, else greeted with HELLO. */
function onConnection(state: GatewayState, socket: WebSocket, req: IncomingMessage): void {
  const url = new URL(req.url ?? '/', 'ws://sandbox')
  const version = url.searchParams.get('v')
  const encoding = url.searchParams.get('encoding')
  const conn: Connection = { socket, session: null }
  state.connections.add(conn)
  socket.on('message', (data) => onMessage(state, conn, data))
  socket.on('close', (code) => {
    state.connections.delete(conn)
    if (conn.session && conn.session.socket === socket) detach(state, conn.session, code)
  })
  socket.on('error', (err) => state.log('gateway socket error', { error: err.message }))
  if (version !== null && version !== '10' && version !== '9') {
    socket.close(CloseCode.invalidApiVersion, 'Invalid API version.')
    return
  }
  if (encoding !== null && encoding !== 'json') {
    socket.close(CloseCode.decodeError, 'Only encoding=json is supported by the sandbox.')
    return
  }
  send(socket, frameOf(Op.hello, { heartbeat_interval: HEARTBEAT_INTERVAL_MS, _trace: ['["presence-link-sandbox",{"micros":0}]'] }))
}

/** {@link Gateway.dispatch}: each target session with the event's intent, blanked without MESSAGE_CONTENT. */
function dispatchEvent(state: GatewayState, t: string, d: unknown, target: DispatchTarget): DispatchResult {
  const inGuild = typeof target.guildId === 'string' && target.guildId !== ''
  const intent = requiredIntent(t, inGuild)
  const blankable = needsBlanking(t, d, state.world.botUserId)
  let full: string | null = null
  let blank: string | null = null
  const result: DispatchResult = { sent: 0, shards: [] }
  for (const session of targets(state, target)) {
    if (intent !== null && (session.intents & intent) === 0) continue
    if (blankable && (session.intents & Intent.messageContent) === 0) {
      blank ??= JSON.stringify(blanked(d))
      sendDispatch(state, session, t, blank)
    } else {
      full ??= JSON.stringify(d)
      sendDispatch(state, session, t, full)
    }
    result.sent++
    result.shards.push(session.shardId)
  }
  return result
}

/** {@link Gateway.disconnect}: op 9 and forgotten, op 7, or a close with the given code. */
function disconnectShard(state: GatewayState, shard: number, how: DisconnectHow): number {
  let ended = 0
  for (const session of [...state.sessions.values()]) {
    if (session.shardId !== shard) continue
    const socket = session.socket
    if (how.invalidate) {
      forget(state, session)
      send(socket, frameOf(Op.invalidSession, false))
      ended++
      continue
    }
    if (!socket) continue
    if (how.reconnect) {
      send(socket, frameOf(Op.reconnect, null))
    } else {
      const code = how.code ?? CloseCode.unknownError
      detach(state, session, code)
      socket.close(code, 'Closed by the sandbox control API.')
    }
    ended++
  }
  state.log('gateway disconnect', { shard, ...how, ended })
  return ended
}

/** {@link Gateway.shards}: each shard's newest connected session, else its newest resumable one. */
function shardStates(state: GatewayState): ShardState[] {
  const out: ShardState[] = []
  for (let id = 0; id < state.options.shardCount; id++) {
    const candidates = [...state.sessions.values()].filter((s) => s.shardId === id)
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
}

/** Creates the gateway; sockets arrive through `handleUpgrade`. */
export function createGateway(options: GatewayOptions): Gateway {
  const { world, log, portal } = options
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 })
  const state: GatewayState = {
    options,
    world,
    portal,
    log,
    bufferSize: options.bufferSize ?? 1000,
    resumeWindowMs: options.resumeWindowMs ?? 120_000,
    sessions: new Map<string, Session>(),
    connections: new Set<Connection>(),
    afterChunks: new Map<string, Array<() => void>>(),
    sessionOrder: 0,
  }
  const { sessions, connections, afterChunks } = state

  wss.on('connection', (socket: WebSocket, req: IncomingMessage) => onConnection(state, socket, req))

  return {
    portal,

    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
    },

    afterMemberChunks(guildId, action) {
      afterChunks.set(guildId, [...(afterChunks.get(guildId) ?? []), action])
    },

    dispatch(t, d, target) {
      return dispatchEvent(state, t, d, target)
    },

    hasSessionFor(target) {
      return targets(state, target).length > 0
    },

    disconnect(shard, how) {
      return disconnectShard(state, shard, how)
    },

    shards() {
      return shardStates(state)
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
