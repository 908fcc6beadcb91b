import t from 'tap'
import { call, startSandbox } from '../fixtures/harness.js'

interface LookupResult {
  data: Array<{ requestedUsername: string; id: number; name: string; displayName: string; hasVerifiedBadge: boolean }>
}

t.test('usernames lookup', async (t) => {
  t.test('matches case-insensitively, keeps the requested spelling and skips unknown names', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/roblox-users', { id: 156, name: 'builderman', displayName: 'Builder Man' })
    await call(sandbox, 'POST', '/control/roblox-users', { id: '1', name: 'Roblox' })
    const res = await call<LookupResult>(sandbox, 'POST', '/roblox/v1/usernames/users', {
      usernames: ['BUILDERMAN', 'nobody_here', 'roblox'],
      excludeBannedUsers: true,
    })
    t.equal(res.status, 200)
    t.same(res.body, {
      data: [
        { requestedUsername: 'BUILDERMAN', hasVerifiedBadge: false, id: 156, name: 'builderman', displayName: 'Builder Man' },
        { requestedUsername: 'roblox', hasVerifiedBadge: false, id: 1, name: 'Roblox', displayName: 'Roblox' },
      ],
    })
    const empty = await call<LookupResult>(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: [], excludeBannedUsers: false })
    t.same(empty.body, { data: [] })
  })

  t.test('refuses bodies Roblox refuses', async (t) => {
    const sandbox = await startSandbox(t)
    const notArray = await call(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: 'builderman' })
    t.equal(notArray.status, 400)
    const tooMany = await call(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: Array.from({ length: 101 }, (_, i) => `user${i}`) })
    t.same(tooMany.body, { errors: [{ code: 2, message: 'Too many usernames.' }] })
  })

  t.test('an injected status is answered until cleared, and calls are counted', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/roblox-users', { id: 156, name: 'builderman' })
    await call(sandbox, 'POST', '/control/roblox-fail', { status: 429 })
    const limited = await call(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: ['builderman'] })
    t.equal(limited.status, 429)
    t.same(limited.body, { errors: [{ code: 0, message: 'TooManyRequests' }] })
    await call(sandbox, 'POST', '/control/roblox-fail', { status: null })
    const ok = await call<LookupResult>(sandbox, 'POST', '/roblox/v1/usernames/users', { usernames: ['builderman'] })
    t.equal(ok.body.data[0]?.id, 156)
    const requests = await call<{ byRoute: Record<string, number> }>(sandbox, 'GET', '/control/requests')
    t.same(requests.body.byRoute, { 'POST /roblox/v1/usernames/users 429': 1, 'POST /roblox/v1/usernames/users 200': 1 })
  })
})

t.test('user details', async (t) => {
  t.test('GET /v1/users/:id returns a known user and 404 otherwise', async (t) => {
    const sandbox = await startSandbox(t)
    await call(sandbox, 'POST', '/control/roblox-users', { id: 156, name: 'builderman', displayName: 'Builder Man' })
    const found = await call<Record<string, unknown>>(sandbox, 'GET', '/roblox/v1/users/156')
    t.match(found.body, { id: 156, name: 'builderman', displayName: 'Builder Man', isBanned: false, hasVerifiedBadge: false })
    const missing = await call(sandbox, 'GET', '/roblox/v1/users/999')
    t.equal(missing.status, 404)
    t.same(missing.body, { errors: [{ code: 3, message: 'The user id is invalid.' }] })
  })
})
