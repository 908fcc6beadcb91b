/**
 * The HTTP edge against malformed and hostile requests, over raw sockets (node:net) against the real front:
 * what the layer cannot parse, lying Content-Length, oversized bodies, and bearer headers with trailing bytes.
 */
import { connect } from 'node:net'
import t from 'tap'
import { startStack, type Stack } from '../helpers/stack.js'

let s: Stack
let port = 0

t.before(async () => {
  s = await startStack(t, { consumers: [] })
  port = Number(new URL(s.origin).port)
})

/** What a raw exchange gave: every byte received, and whether the server closed the socket before our deadline. */
interface Exchange {
  text: string
  closedByServer: boolean
}

/** Writes raw bytes and collects the answer until the server closes the socket; gives up after a generous limit. */
function exchange(chunks: Array<Buffer | string>, limitMs = 30_000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const received: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ text: Buffer.concat(received).toString('latin1'), closedByServer: false })
    }, limitMs)
    socket.on('data', (d) => received.push(d))
    socket.on('error', (e) => {
      clearTimeout(timer)
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET') resolve({ text: Buffer.concat(received).toString('latin1'), closedByServer: true })
      else reject(e)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text: Buffer.concat(received).toString('latin1'), closedByServer: true })
    })
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c)
    })
  })
}

/** A received HTTP/1.1 answer split into status, lower-cased headers and body. */
function parseAnswer(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n')
  const head = end === -1 ? text : text.slice(0, end)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end === -1 ? '' : text.slice(end + 4) }
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`

t.test('a lying Content-Length', async (t) => {
  t.test('with a valid key gets 400 body_incomplete in JSON, and the connection is closed', async (t) => {
    const r = await exchange([
      head(['POST /api/v1/log/server HTTP/1.1', 'Host: x', `Authorization: Bearer ${s.apiKey}`, 'Content-Type: application/json', 'Content-Length: 100']),
      '{"a":1}',
    ])
    const a = parseAnswer(r.text)
    t.equal(a.status, 400)
    t.equal(a.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(a.headers.connection, 'close')
    t.match(JSON.parse(a.body), { detail: { status: 'error', code: 'body_incomplete' } })
    t.equal(r.closedByServer, true)
  })

  t.test('without a key gets 401 in JSON before the body, and the connection is closed', async (t) => {
    const r = await exchange([
      head(['POST /api/v1/bind HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 100']),
      '{"a":1}',
    ])
    const a = parseAnswer(r.text)
    t.equal(a.status, 401)
    t.match(JSON.parse(a.body), { detail: { code: 'unauthorized' } })
    t.equal(r.closedByServer, true)
  })
})

t.test('a body over 1 MiB', async (t) => {
  const big = Buffer.alloc(1024 * 1024 + 10, 'a')
  t.test('without a key gets 401 in JSON: the key is checked before the body', async (t) => {
    const r = await exchange([
      head(['POST /api/v1/bind HTTP/1.1', 'Host: x', 'Authorization: Bearer pl_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'Content-Type: application/json', `Content-Length: ${big.length}`]),
      big,
    ])
    const a = parseAnswer(r.text)
    t.equal(a.status, 401)
    t.match(JSON.parse(a.body), { detail: { code: 'unauthorized', message: 'invalid API key' } })
    t.equal(r.closedByServer, true)
  })

  t.test('with a valid key gets 413 body_too_large in JSON at once (the log route takes batches of up to 1 MiB), and the connection is closed', async (t) => {
    const r = await exchange([
      head(['POST /api/v1/log/server HTTP/1.1', 'Host: x', `Authorization: Bearer ${s.apiKey}`, 'Content-Type: application/json', `Content-Length: ${big.length}`]),
      big.subarray(0, 1000),
    ])
    const a = parseAnswer(r.text)
    t.equal(a.status, 413)
    t.match(JSON.parse(a.body), { detail: { status: 'error', code: 'body_too_large', message: 'the body must be at most 1048576 bytes' } })
    t.equal(r.closedByServer, true)
  })

  t.test('sent chunked with a valid key gets 411 length_required in JSON', async (t) => {
    const r = await exchange([
      head(['POST /api/v1/log/server HTTP/1.1', 'Host: x', `Authorization: Bearer ${s.apiKey}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked']),
      '100000\r\n',
      big.subarray(0, 4096),
    ])
    const a = parseAnswer(r.text)
    t.equal(a.status, 411)
    t.match(JSON.parse(a.body), { detail: { code: 'length_required' } })
    t.equal(r.closedByServer, true)
  })
})

t.test('the bearer header is compared exactly', async (t) => {
  const body = '{}'
  const ask = async (authorization: Buffer) =>
    parseAnswer((await exchange([
      Buffer.concat([
        Buffer.from('POST /api/v1/log/server HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nAuthorization: '),
        authorization,
        Buffer.from(`\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
      ]),
    ])).text)
  const key = s.apiKey
  t.equal((await ask(Buffer.from(`Bearer ${key}`))).status, 422, 'the exact key is accepted (the empty body then fails validation)')
  const refused: Array<[string, Buffer]> = [
    ['a Latin-1 byte inside the key', Buffer.concat([Buffer.from(`Bearer ${key.slice(0, 10)}`), Buffer.from([0xe9]), Buffer.from(key.slice(10))])],
    ['a UTF-8 character then a letter after the key', Buffer.from(`Bearer ${key}éx`)],
    ['a Cyrillic look-alike in place of a letter', Buffer.from(`Bearer ${key.slice(0, 5)}\u0430${key.slice(6)}`)],
  ]
  for (const [name, header] of refused) {
    const a = await ask(header)
    t.equal(a.status, 401, `the key with ${name} is refused`)
    t.match(JSON.parse(a.body || '{}'), { detail: { code: 'unauthorized', message: 'invalid API key' } })
  }
  // uWS 20.30 trims trailing bytes below 33 as signed chars (so 0x80-0xFF too) off header values before JavaScript
  // sees them: `key` + 0xE9 reaches the front as `key`. See docs/api.md; this flips to passing with a fixed uWS.
  t.test('the key followed by a trailing non-ASCII byte', { todo: 'uWS 20.30 strips trailing bytes >= 0x80 from header values' }, async (t) => {
    for (const tail of [[0xe9], [0xc3, 0xa9], [0xa0], [0x85]]) {
      t.equal((await ask(Buffer.concat([Buffer.from(`Bearer ${key}`), Buffer.from(tail)]))).status, 401, `refused with ${Buffer.from(tail).toString('hex')}`)
    }
  })
})

t.test('requests the HTTP layer cannot parse are closed without an answer (uWS 20.30 limit, see docs/api.md)', async (t) => {
  const cases: Array<[string, string]> = [
    ['a control byte in a header', head(['GET /healthz HTTP/1.1', 'Host: x', 'X-A: a\x01b'])],
    ['60 header lines', head(['GET /healthz HTTP/1.1', 'Host: x', ...Array.from({ length: 60 }, (_, i) => `X-H${i}: v`)])],
    ['a raw space in the path', head(['GET /api/v1/callbacks/AB CD HTTP/1.1', 'Host: x'])],
  ]
  const results = await Promise.all(cases.map(([, raw]) => exchange([raw])))
  cases.forEach(([name], i) => {
    t.same(results[i], { text: '', closedByServer: true }, `${name}: no bytes, and the server closes the socket`)
  })
})

t.test('an answer sent before the body arrived carries one Connection header', async (t) => {
  const r = await exchange([
    head(['POST /api/v1/bind HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 100']),
    '{"a":1}',
  ])
  const headLines = r.text.slice(0, r.text.indexOf('\r\n\r\n')).split('\r\n')
  t.equal(parseAnswer(r.text).status, 401)
  t.same(headLines.filter((l) => /^connection:/i.test(l)), ['Connection: close'], 'exactly one, from the HTTP layer')
})

t.test('GET /api/v1/ws without Upgrade gets 426 upgrade_required in JSON, naming the upgrade', async (t) => {
  const a = parseAnswer((await exchange([head(['GET /api/v1/ws HTTP/1.1', 'Host: x', 'Connection: close'])])).text)
  t.equal(a.status, 426)
  t.equal(a.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(a.headers.upgrade, 'websocket')
  t.same(JSON.parse(a.body), {
    detail: {
      status: 'error',
      code: 'upgrade_required',
      message: 'this is a WebSocket endpoint: connect with Upgrade: websocket (or use GET /api/v1/stream/{codes} for server-sent events)',
    },
  })
})

t.test('a request target over 3,072 bytes gets 414 uri_too_long every time', async (t) => {
  const codesPath = (bytes: number) => Array.from({ length: Math.ceil((bytes + 1) / 5) }, (_, i) => `A${String(i % 1000).padStart(3, '0')}`).join('&').slice(0, bytes)
  const prefix = '/api/v1/callbacks/'
  t.test('callbacks and rpc, in plain text, from just over the limit to 64 KiB and beyond (one write each)', async (t) => {
    for (const route of ['callbacks', 'rpc']) {
      for (const target of [3073, 4000, 16_000, 64 * 1024, 70_000]) {
        const path = `/api/v1/${route}/${codesPath(target - `/api/v1/${route}/`.length)}`
        for (let attempt = 0; attempt < 3; attempt++) {
          const a = parseAnswer((await exchange([head([`GET ${path} HTTP/1.1`, 'Host: x', 'Connection: close'])])).text)
          t.equal(a.status, 414, `${route}, ${target} bytes, attempt ${attempt + 1}`)
          t.equal(a.body, `the request target is ${target} bytes; at most 3072 are read\n`)
        }
      }
    }
  })
  t.test('exactly 3,072 bytes is read (400: the made-up codes are over MAX_CODES_PER_REQUEST)', async (t) => {
    const path = `${prefix}${codesPath(3072 - prefix.length)}`
    const a = parseAnswer((await exchange([head([`GET ${path} HTTP/1.1`, 'Host: x', 'Connection: close'])])).text)
    t.equal(a.status, 400)
    t.equal(a.body, 'too many codes: at most 200 per request\n')
  })
  t.test('a JSON route, an unknown route and a stream, in their own formats', async (t) => {
    const query = `?${'q'.repeat(3100)}`
    const readyz = parseAnswer((await exchange([head([`GET /readyz${query} HTTP/1.1`, 'Host: x', 'Connection: close'])])).text)
    t.equal(readyz.status, 414)
    t.same(JSON.parse(readyz.body), { detail: { status: 'error', code: 'uri_too_long', message: 'the request target is 3108 bytes; at most 3072 are read' } })
    const unknown = parseAnswer((await exchange([head([`GET /nowhere/${'x'.repeat(4000)} HTTP/1.1`, 'Host: x', 'Connection: close'])])).text)
    t.equal(unknown.status, 414)
    t.equal(JSON.parse(unknown.body).detail.code, 'uri_too_long')
    const stream = parseAnswer((await exchange([head([`GET /api/v1/stream/${codesPath(4000)} HTTP/1.1`, 'Host: x', 'Connection: close'])])).text)
    t.equal(stream.status, 414)
    t.equal(stream.body, `the request target is ${'/api/v1/stream/'.length + 4000} bytes; at most 3072 are read\n`)
  })
})

t.test('a JSON body that starts with a UTF-8 byte-order mark is read', async (t) => {
  const json = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"event_type":"boot","description":"written by a Windows tool"}')])
  const a = parseAnswer((await exchange([
    head(['POST /api/v1/log/server HTTP/1.1', 'Host: x', 'Connection: close', `Authorization: Bearer ${s.apiKey}`, 'Content-Type: application/json', `Content-Length: ${json.length}`]),
    json,
  ])).text)
  t.equal(a.status, 200)
  t.same(JSON.parse(a.body), { status: 'logged', category: 'server' })
})
