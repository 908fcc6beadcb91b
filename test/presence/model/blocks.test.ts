/** Rendering callbacks and rpc blocks (src/presence/model/blocks.ts). */
import t from 'tap'
import {
  BlockMessage,
  type CodeView,
  UNLINKED_USERNAME,
  renderCallbackBlock,
  renderRpcBlock,
} from '../../../src/presence/model/blocks.js'

const SPOTIFY = 'Listening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n'

t.test('block messages', async (t) => {
  t.strictSame(BlockMessage, {
    banned: '"This code is banned. Contact support for help."',
    invalidated: '"This code was invalidated. Contact support for help."',
    paused: '"Detection Paused"',
    notFound: '"Code not found"',
    notLinked: '"Code not linked"',
    noActivity: 'No activity detected',
  })
  t.equal(UNLINKED_USERNAME, '(unlinked)')
  t.ok(Object.isFrozen(BlockMessage))
})

const cases: Array<{
  name: string
  callbacksSays: string
  rpcSays: string
  view: CodeView
  callbacks: string
  rpc: string
}> = [
  {
    name: 'active code with activity',
    callbacksSays: 'a ; block with the username and the activity groups',
    rpcSays: 'a block with only the activity groups',
    view: { kind: 'active', username: 'builderman', activity: SPOTIFY },
    callbacks: `{AB12;\nbuilderman;\n${SPOTIFY}}\n`,
    rpc: `{AB12;\n${SPOTIFY}}\n`,
  },
  {
    name: 'active code without activity',
    callbacksSays: 'a ; block with the username and No activity detected',
    rpcSays: 'an empty block',
    view: { kind: 'active', username: 'builderman', activity: '' },
    callbacks: '{AB12;\nbuilderman;\nNo activity detected;\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'banned code',
    callbacksSays: 'a : block with the username and the support message',
    rpcSays: 'an empty block',
    view: { kind: 'banned', username: 'builderman' },
    callbacks: '{AB12:\nbuilderman;\n"This code is banned. Contact support for help.";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'banned code with no account',
    callbacksSays: 'a : block with (unlinked) and the support message',
    rpcSays: 'an empty block',
    view: { kind: 'banned', username: null },
    callbacks: '{AB12:\n(unlinked);\n"This code is banned. Contact support for help.";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'invalidated code',
    callbacksSays: 'a : block with the username and the support message',
    rpcSays: 'an empty block',
    view: { kind: 'invalidated', username: 'builderman' },
    callbacks: '{AB12:\nbuilderman;\n"This code was invalidated. Contact support for help.";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'invalidated code with no account',
    callbacksSays: 'a : block with (unlinked) and the support message',
    rpcSays: 'an empty block',
    view: { kind: 'invalidated', username: null },
    callbacks: '{AB12:\n(unlinked);\n"This code was invalidated. Contact support for help.";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'paused code',
    callbacksSays: 'a : block with Detection Paused',
    rpcSays: 'an empty block',
    view: { kind: 'paused' },
    callbacks: '{AB12:\n"Detection Paused";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'code not linked yet',
    callbacksSays: 'a : block with Code not linked',
    rpcSays: 'an empty block',
    view: { kind: 'not_linked' },
    callbacks: '{AB12:\n"Code not linked";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'unknown code',
    callbacksSays: 'a : block with Code not found',
    rpcSays: 'an empty block',
    view: { kind: 'not_found' },
    callbacks: '{AB12:\n"Code not found";\n}\n',
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'active code whose username carries grammar characters',
    callbacksSays: 'a username line with the grammar characters replaced',
    rpcSays: 'an empty block',
    view: { kind: 'active', username: 'a;b\n{CD12;\n}"', activity: '' },
    callbacks: "{AB12;\na,b (CD12, )';\nNo activity detected;\n}\n",
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'banned code whose username is longer than 32 characters',
    callbacksSays: 'a username cut to 31 characters and an ellipsis',
    rpcSays: 'an empty block',
    view: { kind: 'banned', username: `${'u'.repeat(40)}` },
    callbacks: `{AB12:\n${'u'.repeat(31)}…;\n"This code is banned. Contact support for help.";\n}\n`,
    rpc: '{AB12;\n}\n',
  },
  {
    name: 'active code whose username sanitizes to nothing',
    callbacksSays: '(unlinked) as the username line',
    rpcSays: 'a block with only the activity groups',
    view: { kind: 'active', username: '\u200B\u202E ', activity: 'Playing,\nMinecraft;\n' },
    callbacks: '{AB12;\n(unlinked);\nPlaying,\nMinecraft;\n}\n',
    rpc: '{AB12;\nPlaying,\nMinecraft;\n}\n',
  },
  {
    name: 'invalidated code whose username is an emoji',
    callbacksSays: 'the emoji username intact',
    rpcSays: 'an empty block',
    view: { kind: 'invalidated', username: '👍🏽 fam 👨‍👩‍👧‍👦' },
    callbacks: '{AB12:\n👍🏽 fam 👨‍👩‍👧‍👦;\n"This code was invalidated. Contact support for help.";\n}\n',
    rpc: '{AB12;\n}\n',
  },
]

t.test('callbacks', async (t) => {
  for (const c of cases) {
    t.test(`${c.name} gives ${c.callbacksSays}`, async (t) => {
      t.equal(renderCallbackBlock('AB12', c.view), c.callbacks)
    })
  }
  t.test('a value that is not a code is a bug and throws', async (t) => {
    for (const code of ['ab12', 'AB1', 'AB123', 'AB;\n', '']) {
      t.throws(() => renderCallbackBlock(code, { kind: 'paused' }), TypeError, JSON.stringify(code))
    }
  })
})

t.test('rpc', async (t) => {
  for (const c of cases) {
    t.test(`${c.name} gives ${c.rpcSays}`, async (t) => {
      t.equal(renderRpcBlock('AB12', c.view), c.rpc)
    })
  }
  t.test('a value that is not a code is a bug and throws', async (t) => {
    for (const code of ['ab12', 'AB1', 'AB123', '{AB1', '']) {
      t.throws(() => renderRpcBlock(code, { kind: 'not_found' }), TypeError, JSON.stringify(code))
    }
  })
})
