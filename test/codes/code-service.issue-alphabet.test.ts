/** Codes issued by the real code service (MySQL, Redis) never contain O, I or L; an old code with them still binds. */
import t from 'tap'
import { postJson, startStack } from '../helpers/stack.js'

t.test('issued codes avoid the look-alikes; codes issued before the rule keep working', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: 'off' } })
  const issued: string[] = []
  for (let i = 0; i < 200; i++) issued.push((await stack.codes.issue(String(880000000000000000n + BigInt(i)))).code.code)
  t.equal(new Set(issued).size, 200)
  t.same(issued.filter((code) => /[OIL]/.test(code)), [], '200 new codes, none with O, I or L')
  t.ok(issued.every((code) => /^[A-Z0-9]{4}$/.test(code)))

  await stack.db.insertInto('codes').values({ code: 'OIL0', chat_user_id: '880000000000009999', state: 'active', paused: false, updated_at: new Date() }).execute()
  const bind = await postJson(`${stack.api}/bind`, { code: 'OIL0', platform_username: 'Old_Timer', platform_user_id: 31337 }, `Bearer ${stack.apiKey}`)
  t.same(bind.body, { status: 'bound', platform_username: 'Old_Timer' })
  const lowered = await postJson(`${stack.api}/bind`, { code: 'oil0', platform_username: 'Old_Timer', platform_user_id: 31337 }, `Bearer ${stack.apiKey}`)
  t.equal(lowered.status, 422, 'the service itself stays strict: no normalizing')
})
