// The native side of the Roblox engine stand-in (test/clients/roblox/engine.lua, harness.lua): runs one scenario
// script under a real Luau VM (the npm package luau-web: Luau compiled to WebAssembly) and gives it what the engine
// does in C++ and Luau cannot do by itself: the clock, HTTP requests, SSE and WebSocket connections, files, the
// environment and standard output. `node --liftoff-only test/helpers/luau-host.mjs test/clients/roblox/poll.lua` (the
// flag: test/helpers/luau-scenario.ts).
//
// The bridge, as Host.* in Luau:
//   now()                          wall time in seconds (millisecond precision and better)
//   env(name)                      an environment variable, or nil
//   write(text)                    text to standard output
//   read(path)                     a file's bytes (a path relative to the repository, or absolute)
//   list(path)                     a repository folder's entries (LF between them), or nil when it is no folder
//   load(path)                     a repository file compiled as a Luau function whose first argument is `script`
//                                  (or the compiler's error message), once
//   request(method, url, headers, body, hasBody, sourceAddress)   starts an HTTP request; returns its id
//   stream(kind, url)              opens an SSE ("SSE") or WebSocket ("WebSocket") connection; returns its id
//   send(id, text), close(id)      a WebSocket message; closing a stream
//   wait(seconds)                  yields the VM (not the Node process) until an event is queued or `seconds` pass;
//                                  returns how many events are queued
//   next()                         the oldest queued event, or nil
// Requests and streams run concurrently in Node; their outcomes queue as events (`kind \n id \n fields...`), which
// the Luau scheduler takes between task resumptions, so a yield in RequestAsync suspends only its own task, as in the
// engine.
//
// Values cross as luau-web converts them: numbers and strings as they are, but any falsy value (undefined, 0, '') as
// nil and null as an object: the functions return undefined for "none", and Luau reads a missing count as 0.
// Strings cross the bridge escaped (control characters, `%` and bytes from 0x7F as %XX): luau-web truncates a string at
// NUL on the way into the VM and replaces bytes that are not UTF-8 on the way out, and a body must keep every byte.
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { dirname, isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'

// Under Node 24+ luau-web loads its JSPI build, whose pcall lets errors escape to JavaScript; without these two the
// Asyncify build loads, which behaves (docs: /work/shared/platform-notes.md, "Checked on 2026-11-28").
delete WebAssembly.Suspending
delete WebAssembly.promising
const { LuauState } = await import('luau-web')

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Bytes (a Buffer) as the bridge's escaped ASCII. */
function escapeBytes(buffer) {
  return buffer.toString('latin1').replace(/[\x00-\x1f%\x7f-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
}
const escapeText = (text) => escapeBytes(Buffer.from(String(text), 'utf8'))
/** The bridge's escaped ASCII as bytes. */
function unescapeBytes(text) {
  return Buffer.from(String(text).replace(/%([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))), 'latin1')
}

const events = []
let wake = null
let lastAwait = Date.now()
let nextId = 1

/** Queues an event: its fields, each escaped, joined by LF. */
function queue(...fields) {
  events.push(fields.map((f) => (Buffer.isBuffer(f) ? escapeBytes(f) : escapeText(f ?? ''))).join('\n'))
  if (wake !== null) {
    const w = wake
    wake = null
    w()
  }
}

function startRequest(method, url, headers, body, hasBody, sourceAddress) {
  const id = nextId++
  const target = new URL(url)
  const headerLines = unescapeBytes(headers).toString('utf8').split('\n').filter((l) => l !== '')
  const outgoing = {}
  for (const line of headerLines) {
    const tab = line.indexOf('\t')
    outgoing[line.slice(0, tab)] = line.slice(tab + 1)
  }
  const payload = hasBody ? unescapeBytes(body) : null
  if (payload !== null) outgoing['content-length'] = String(payload.length)
  const req = httpRequest(
    { host: target.hostname, port: target.port || 80, path: `${target.pathname}${target.search}`, method, headers: outgoing, localAddress: sourceAddress || undefined, agent: false },
    (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        const lines = []
        for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i].toLowerCase()}\t${res.rawHeaders[i + 1]}`)
        queue('response', id, res.statusCode, res.statusMessage ?? '', lines.join('\n'), Buffer.concat(chunks))
      })
      res.on('error', (err) => queue('failed', id, `HttpError: ${err.message}`))
    },
  )
  // As the engine's: a request that gets no answer fails (HttpError: Timedout) rather than hanging for ever.
  req.setTimeout(60_000, () => req.destroy(new Error('Timedout')))
  req.on('error', (err) => queue('failed', id, `HttpError: ${err.code === 'ECONNREFUSED' ? 'ConnectFail' : err.message}`))
  if (payload !== null) req.end(payload)
  else req.end()
  return id
}

const streams = new Map()

/** An SSE client as EventSource reads a stream: each event's data lines joined by LF fire one message. */
function openSse(id, url) {
  const req = httpRequest(url, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
    const type = String(res.headers['content-type'] ?? '')
    if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
      queue('error', id, res.statusCode ?? 0, `not an event stream (HTTP ${res.statusCode})`)
      res.resume()
      res.on('end', () => queue('closed', id))
      return
    }
    queue('open', id, res.statusCode)
    let buffer = ''
    let data = []
    res.setEncoding('utf8')
    res.on('data', (chunk) => {
      buffer += chunk
      for (;;) {
        const end = buffer.indexOf('\n')
        if (end === -1) break
        const line = buffer.slice(0, end).replace(/\r$/, '')
        buffer = buffer.slice(end + 1)
        if (line === '') {
          if (data.length > 0) queue('message', id, data.join('\n'))
          data = []
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''))
        }
      }
    })
    res.on('end', () => queue('closed', id))
    res.on('error', () => queue('closed', id))
  })
  req.on('error', (err) => {
    queue('error', id, 0, err.message)
    queue('closed', id)
  })
  req.end()
  streams.set(id, { close: () => req.destroy() })
}

/** A WebSocket client (RFC 6455 through the ws package: masking, the handshake's accept check, pings). */
function openWebSocket(id, url) {
  const socket = new WebSocket(url)
  let opened = false
  socket.on('open', () => {
    opened = true
    queue('open', id, 101)
  })
  socket.on('message', (data, isBinary) => queue('message', id, isBinary ? data : Buffer.from(data)))
  socket.on('unexpected-response', (_req, res) => {
    queue('error', id, res.statusCode ?? 0, `the WebSocket upgrade was refused (HTTP ${res.statusCode})`)
    queue('closed', id)
    res.resume()
    socket.terminate()
  })
  socket.on('close', (code, reason) => {
    if (opened && code !== 1000 && code !== 1005) queue('error', id, code, reason.toString('utf8'))
    if (opened) queue('closed', id)
  })
  socket.on('error', (err) => {
    if (!opened) {
      queue('error', id, 0, err.message)
      queue('closed', id)
    }
  })
  streams.set(id, {
    send: (text) => socket.send(unescapeBytes(text).toString('utf8')),
    close: () => (socket.readyState === WebSocket.OPEN ? socket.close(1000) : socket.terminate()),
  })
}

let state = null
const compiled = new Map()


/** The name a file's errors show, as the engine names a script (its full name). */
function chunkName(path) {
  const file = path.slice(path.lastIndexOf('/') + 1)
  if (path === 'clients/roblox/PresenceLink.single.lua' || path === 'clients/roblox/PresenceLink/init.lua') return 'ServerScriptService.PresenceLink'
  if (path.startsWith('clients/roblox/PresenceLink/')) return `ServerScriptService.PresenceLink.${file.slice(0, -4)}`
  if (path.startsWith('clients/roblox/kit/')) return file.replace(/\.(server|client)\.lua$/, '')
  if (path.startsWith('test/clients/roblox/')) return file.slice(0, -4)
  return path
}

// The file being compiled: luau-web aborts the whole VM when its compiler fails inside a call from Luau (at the top
// level it returns the message), so an abort then is named here.
let compiling = null
process.on('exit', (status) => {
  if (status !== 0 && compiling !== null) process.stderr.write(`\nluau-host: the VM aborted while compiling ${compiling}: a syntax error? (compile.lua names it)\n`)
})

/** A file compiled as a function whose first argument is `script`, or the compiler's message. */
function compile(path) {
  if (!compiled.has(path)) {
    let source
    try {
      source = readFileSync(isAbsolute(path) ? path : join(ROOT, path), 'utf8')
    } catch (err) {
      return `${path}: ${err.message}`
    }
    compiling = path
    // `script` is each script's own, as in the engine: a local on the first line, which keeps line numbers.
    compiled.set(path, state.loadstring(`local script = ...; ${source}`, `=${chunkName(path)}`, false))
    compiling = null
  }
  return compiled.get(path)
}

const host = {
  now: () => (performance.timeOrigin + performance.now()) / 1000,
  env: (name) => (process.env[name] === undefined ? undefined : escapeText(process.env[name])),
  write: (text) => {
    process.stdout.write(unescapeBytes(text))
  },
  read: (path) => escapeBytes(readFileSync(isAbsolute(path) ? path : join(ROOT, path))),
  list: (path) => (statSync(join(ROOT, path), { throwIfNoEntry: false })?.isDirectory() ? readdirSync(join(ROOT, path)).sort().join('\n') : undefined),
  load: compile,
  request: startRequest,
  stream: (kind, url) => {
    const id = nextId++
    if (kind === 'WebSocket') openWebSocket(id, url)
    else openSse(id, url)
    return id
  },
  send: (id, text) => {
    streams.get(id)?.send?.(text)
  },
  close: (id) => {
    streams.get(id)?.close()
    streams.delete(id)
  },
  // Returns at once when events are queued, or when told not to wait and Node had a turn less than 20 ms ago; else
  // a promise, which luau-web awaits with the VM suspended while Node runs its I/O.
  wait: (seconds) => {
    if (events.length > 0) return events.length
    if (!(seconds > 0) && Date.now() - lastAwait < 20) return 0
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        wake = null
        lastAwait = Date.now()
        resolve(events.length)
      }
      const timer = setTimeout(done, Math.max(0, Math.min(seconds, 60)) * 1000)
      wake = done
    })
  },
  next: () => (events.length > 0 ? events.shift() : undefined),
}

const script = process.argv[2]
if (script === undefined) {
  process.stderr.write('usage: node test/helpers/luau-host.mjs SCENARIO.lua\n')
  process.exit(2)
}
state = await LuauState.createAsync({})
state.env.set('Host', host, true)
try {
  // The files FILES names (compile.lua) are compiled here, at the top level, where a syntax error is a message.
  for (const path of (process.env.FILES ?? '').split(',').filter((p) => p !== '')) compile(path)
  for (const path of ['test/clients/roblox/engine.lua', script]) {
    const chunk = compile(path)
    if (typeof chunk !== 'function') throw new Error(String(chunk))
    await chunk()
  }
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
}
for (const s of streams.values()) s.close()
// LUAU_HOST_CPU_LOG=FILE: one line per scenario run (its path, CPU and wall milliseconds), to measure what the
// scenarios cost (docs/development.md).
if (process.env.LUAU_HOST_CPU_LOG) {
  const cpu = process.cpuUsage()
  appendFileSync(process.env.LUAU_HOST_CPU_LOG, `${script}\t${Math.round((cpu.user + cpu.system) / 1000)}\t${Math.round(performance.now())}\n`)
}
// Standard output to a pipe is written asynchronously: exit once it is flushed (sockets a scenario left open would
// otherwise keep the process alive).
process.stdout.write('', () => process.exit())
