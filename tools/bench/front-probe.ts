/**
 * Preloaded into the front's processes by the stream benchmark (`NODE_OPTIONS=--import <this file>` with
 * BENCH_PROBE_DIR set; never by the service itself): records the process's garbage collections, event-loop stalls and
 * delay (measurements/loop-recorder.ts) and answers on a Unix socket `BENCH_PROBE_DIR/probe-<pid>.sock`, one command
 * line per connection: `reset`, `record`, or `collect` (a full GC first), each answered with one JSON line, or
 * `snapshot PATH` (a heap snapshot written to PATH, for looking into what the heap holds; answered with the record).
 * The socket and the recorder's timer are unref'd, so the front stops exactly as it would without the probe.
 */
import { createServer } from 'node:net'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { createLoopRecorder } from './measurements/loop-recorder.js'

const dir = process.env.BENCH_PROBE_DIR
if (dir !== undefined && dir !== '') {
  const recorder = createLoopRecorder()
  const server = createServer((socket) => {
    socket.setEncoding('utf8')
    let input = ''
    socket.on('data', (chunk: string) => {
      input += chunk
      if (!input.includes('\n')) return
      const command = input.trim()
      if (command === 'reset') recorder.reset()
      if (command.startsWith('snapshot ')) writeHeapSnapshot(command.slice('snapshot '.length))
      const answer = command === 'collect' ? recorder.collect() : recorder.record()
      socket.end(`${JSON.stringify(answer)}\n`)
    })
    socket.on('error', () => socket.destroy())
  })
  server.listen(join(dir, `probe-${process.pid}.sock`))
  server.unref()
}
