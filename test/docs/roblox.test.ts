/**
 * docs/roblox.md and docs/cli.md give one instruction for the Open Cloud key's accepted IP addresses (cli.md points to
 * roblox.md's), and roblox.md says how Studio reaches a local `npm start`.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8').replace(/\s+/g, ' ')

t.test('the accepted IP addresses: said once, in roblox.md step 7; cli.md points there', async (t) => {
  const roblox = read('docs/roblox.md')
  const cli = read('docs/cli.md')
  t.match(roblox, /Under \*\*Accepted IP Addresses\*\*, add the public outbound address of every machine that runs a worker/)
  t.match(cli, /\*\*Accepted IP Addresses\*\*, \[roblox\.md step 7\]\(roblox\.md#7-push-into-live-servers-open-cloud-messaging\) is the one instruction/)
  t.notMatch(cli, /allow the worker's IP/, 'the old, different instruction is gone')
  t.notMatch(roblox, /the service's outbound address \(ask the operator\)/, 'and the other old one')
})

t.test('Studio against a local npm start: the loopback base URL and HTTP requests', async (t) => {
  const roblox = read('docs/roblox.md')
  t.match(roblox, /\*\*Against a local `npm start`\*\*/)
  t.match(roblox, /baseUrl = "http:\/\/127\.0\.0\.1:8080\/api\/v1"/)
  t.match(roblox, /\*\*Allow HTTP Requests\*\* on/)
})
