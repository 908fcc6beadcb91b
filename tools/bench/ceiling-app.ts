/**
 * The ceiling's server (tools/bench/ceiling-server.ts runs it in a process of its own): a plain hyper-express server
 * that answers callbacks and rpc with a precomputed answer, the real service's body as UTF-8 bytes and the headers the
 * front sent with it, so both sides of a comparison put the same bytes on the wire. Given a log answer, it also takes
 * log events: it reads and parses each JSON body (what any server that accepts an event must do) and answers the
 * service's own 200, nothing more.
 */
import HyperExpress from 'hyper-express'
import type { CeilingAnswer, CeilingAnswers } from './measurements/ceiling-comparison.js'

const TEXT = 'text/plain; charset=utf-8'
const JSON_TYPE = 'application/json; charset=utf-8'

/** Sends `body` as `type` with the copied `headers`. */
function answer(res: HyperExpress.Response, type: string, headers: ReadonlyArray<[string, string]>, body: Buffer): void {
  res.header('content-type', type)
  for (const [name, value] of headers) res.header(name, value)
  res.send(body)
}

/** Headers the server writes itself (or uWS does), which the ceiling must not copy. */
const OWN_HEADERS = new Set(['content-length', 'content-type', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'uwebsockets'])

/** The copied headers of an answer, as name and value pairs. */
function copiedHeaders(answer: CeilingAnswer): Array<[string, string]> {
  return Object.entries(answer.headers).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase()))
}

/**
 * Listens on 127.0.0.1:`port`, answering `GET /api/v1/{callbacks,rpc}/:codes` with the given answers, and
 * `POST /api/v1/log/:category` with the log answer (a body that is not JSON gets a 400).
 */
export async function listenCeiling(port: number, answers: CeilingAnswers): Promise<HyperExpress.Server> {
  const app = new HyperExpress.Server()
  for (const route of ['callbacks', 'rpc'] as const) {
    // Encoded once, as the front keeps its remembered answers: the bytes go out without a conversion per request.
    const body = Buffer.from(answers[route].text, 'utf8')
    const headers = copiedHeaders(answers[route])
    app.get(`/api/v1/${route}/:codes`, (_req, res) => answer(res, TEXT, headers, body))
  }
  const logAnswer = answers.log
  if (logAnswer !== undefined) {
    const body = Buffer.from(logAnswer.text, 'utf8')
    const headers = copiedHeaders(logAnswer)
    app.post('/api/v1/log/:category', async (req, res) => {
      try {
        JSON.parse(await req.text())
      } catch {
        res.status(400).header('content-type', JSON_TYPE).send('{"error":"invalid_json"}')
        return
      }
      answer(res, JSON_TYPE, headers, body)
    })
  }
  await app.listen(port, '127.0.0.1')
  return app
}
