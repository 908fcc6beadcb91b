/** The benchmarks' own HTTP calls (seeding, open-loop binds): one keep-alive agent, bodies read whole. */
import { Agent, request } from 'node:http'

/** A response's status, headers (names in lower case, repeated ones joined with ", ") and text. */
export interface TextResponse {
  status: number
  headers: Record<string, string>
  text: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** Sends one request over the shared keep-alive agent. */
export function send(url: string, method: string, body: string | undefined, headers: Record<string, string>): Promise<TextResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** POSTs JSON with a bearer and parses the JSON answer. */
export async function postJson(url: string, body: unknown, bearer: string): Promise<{ status: number; body: unknown }> {
  const res = await send(url, 'POST', JSON.stringify(body), { 'content-type': 'application/json', authorization: bearer })
  return { status: res.status, body: JSON.parse(res.text) as unknown }
}

/** Closes the agent's idle sockets so the process can exit. */
export function closeHttp(): void {
  agent.destroy()
}
