/**
 * Redis MONITOR on a plain socket, for the tests and benches that count the commands a piece of work sends.
 *
 * ioredis's own `monitor()` loses a race on a busy server: when MONITOR's `+OK` and the first monitored command arrive
 * in one read, the command is parsed before the connection's state says "monitoring", and the monitor connection
 * fails with "Command queue state error" (seen in a clean-clone CI run, with other test files' BullMQ workers busy on
 * the same Redis). Here the protocol is read line by line, so nothing arriving early is misread.
 */
import net from 'node:net'

export interface CommandWatch {
  /** Resolves once the server has answered MONITOR: every command sent after that is seen. */
  ready: Promise<void>
  stop(): void
}

/** Calls `onCommand` with the arguments (command name first) of every command the server at `redisUrl` runs. */
export function watchCommands(redisUrl: string, onCommand: (args: string[]) => void): CommandWatch {
  const url = new URL(redisUrl)
  const socket = net.connect(Number(url.port || 6379), url.hostname || '127.0.0.1')
  const password = decodeURIComponent(url.password)
  const username = decodeURIComponent(url.username)
  const setup: string[][] = []
  if (password) setup.push(username ? ['AUTH', username, password] : ['AUTH', password])
  setup.push(['MONITOR'])
  let pendingOks = setup.length
  let buffered = ''
  let stopped = false
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => socket.write(setup.map(encode).join('')))
    socket.on('error', (err) => {
      if (!stopped) reject(err)
    })
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      buffered += chunk
      let end: number
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        if (pendingOks > 0) {
          if (line !== '+OK') {
            reject(new Error(`MONITOR set-up refused: ${line}`))
            socket.destroy()
            return
          }
          if (--pendingOks === 0) resolve()
          continue
        }
        if (line.startsWith('+')) onCommand(parseMonitorLine(line))
      }
    })
  })
  return {
    ready,
    stop() {
      stopped = true
      socket.destroy()
    },
  }
}

/** The commands (as `watchCommands` sees them) run while `work` runs, with a settle time either side. */
export async function commandsDuring(redisUrl: string, work: () => Promise<void>, settleMs = 200): Promise<string[][]> {
  const seen: string[][] = []
  const watch = watchCommands(redisUrl, (args) => seen.push(args))
  try {
    await watch.ready
    await new Promise((resolve) => setTimeout(resolve, settleMs))
    seen.length = 0
    await work()
    await new Promise((resolve) => setTimeout(resolve, settleMs))
    return seen.slice()
  } finally {
    watch.stop()
  }
}

function encode(args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' }

/** `+1339518083.107412 [0 127.0.0.1:60866] "set" "k\"ey"` → `['set', 'k"ey']` (Redis quotes with sdscatrepr). */
export function parseMonitorLine(line: string): string[] {
  const args: string[] = []
  let i = line.indexOf('] ')
  if (i < 0) return args
  i += 2
  while (i < line.length) {
    if (line[i] !== '"') {
      i++
      continue
    }
    i++
    let arg = ''
    while (i < line.length && line[i] !== '"') {
      if (line[i] === '\\' && i + 1 < line.length) {
        const next = line[i + 1]!
        if (next === 'x' && i + 3 < line.length) {
          arg += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16))
          i += 4
          continue
        }
        arg += ESCAPES[next] ?? next
        i += 2
        continue
      }
      arg += line[i]
      i++
    }
    args.push(arg)
    i++
  }
  return args
}
