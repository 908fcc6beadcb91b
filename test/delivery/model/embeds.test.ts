/** Log entries as Discord embeds within Discord's limits (src/delivery/model/embeds.ts). */
import t, { type Test } from 'tap'
import { CATEGORY_STYLE, cutText, embedSize, EmbedLimit, escapeMarkdown, messagePayload, renderEntryEmbed, textLength, type EntryView } from '../../../src/delivery/model/embeds.js'

const base: EntryView = {
  id: '42',
  category: 'moderation',
  eventType: 'kick',
  description: 'Exploiting speed',
  platformUsername: 'Rule_Breaker',
  platformUserId: '4242',
  issuedBy: 'ModBob',
  code: 'AB12',
  source: 'api:game-eu',
  receivedAt: new Date('2024-05-01T12:00:00.000Z'),
}

t.test('cutText', async (t) => {
  const cases: Array<[string, string, number, string]> = [
    ['short text is kept', 'hello', 10, 'hello'],
    ['text at the limit is kept', 'hello', 5, 'hello'],
    ['longer text ends in an ellipsis within the limit', 'hello world', 8, 'hello w…'],
    ['emoji count as code points and are never split', '😀😀😀😀', 3, '😀😀…'],
    ['a family emoji (one grapheme of 7 code points) is dropped whole, not cut', `ab${'👨‍👩‍👧‍👦'}cd`, 6, 'ab…'],
    ['a zero limit gives nothing', 'abc', 0, ''],
    ['newlines are kept', 'a\nb\nc\nd', 4, 'a\nb…'],
  ]
  for (const [name, text, max, expected] of cases) {
    t.test(name, async (t) => {
      const out = cutText(text, max)
      t.equal(out, expected)
      t.ok(textLength(out) <= max)
    })
  }
})

t.test('renderEntryEmbed', async (t) => {
  t.test('a full entry carries every field, labeled with its category', async (t) => {
    t.same(renderEntryEmbed(base), {
      title: 'Moderation log · kick',
      color: CATEGORY_STYLE.moderation.color,
      description: 'Exploiting speed',
      fields: [
        { name: 'Event', value: 'kick', inline: true },
        { name: 'Player', value: '[Rule\\_Breaker](https://www.roblox.com/users/4242/profile) (4242)', inline: true },
        { name: 'Issued by', value: 'ModBob', inline: true },
        { name: 'Code', value: '`AB12`', inline: true },
        { name: 'Source', value: 'api:game-eu', inline: true },
      ],
      footer: { text: 'Entry #42' },
      timestamp: '2024-05-01T12:00:00.000Z',
    })
  })

  const cases: Array<[string, Partial<EntryView>, (t: Test, e: ReturnType<typeof renderEntryEmbed>) => void]> = [
    ['each category has its own title and colour', { category: 'server' }, (t, e) => {
      t.equal(e.title, 'Server log · kick')
      t.equal(e.color, 0x5865f2)
    }],
    ['the in-game log is green', { category: 'ingame' }, (t, e) => {
      t.equal(e.title, 'In-game log · kick')
      t.equal(e.color, 0x57f287)
    }],
    ['a player known only by id links to the profile with the id as label', { platformUsername: null }, (t, e) => {
      t.equal(e.fields.find((f) => f.name === 'Player')?.value, '[4242](https://www.roblox.com/users/4242/profile) (4242)')
    }],
    ['a player known only by name has no link', { platformUserId: null }, (t, e) => {
      t.equal(e.fields.find((f) => f.name === 'Player')?.value, 'Rule\\_Breaker', 'escaped like every untrusted text')
    }],
    ['absent fields are left out', { platformUsername: null, platformUserId: null, issuedBy: null, code: null }, (t, e) => {
      t.same(e.fields.map((f) => f.name), ['Event', 'Source'])
    }],
    ['@everyone and user mentions stay as text (the payload forbids pings)', { description: '@everyone <@123> <@&456> @here' }, (t, e) => {
      t.equal(e.description, '\\@everyone \\<\\@123\\> \\<\\@&456\\> \\@here', 'escaped: Discord shows the text as typed')
    }],
    ['newlines stay in the description but not in the title or fields', { eventType: 'multi\nline', issuedBy: 'Mod\nBob', description: 'line 1\nline 2' }, (t, e) => {
      t.equal(e.title, 'Moderation log · multi line')
      t.equal(e.fields.find((f) => f.name === 'Issued by')?.value, 'Mod Bob')
      t.equal(e.description, 'line 1\nline 2')
    }],
    ['emoji pass through', { description: 'gg 🎉🔥', issuedBy: '🤖 bot' }, (t, e) => {
      t.equal(e.description, 'gg 🎉🔥')
      t.equal(e.fields.find((f) => f.name === 'Issued by')?.value, '🤖 bot')
    }],
    ['a 4,000-character description is kept whole', { description: 'd'.repeat(4000) }, (t, e) => {
      t.equal(e.description, 'd'.repeat(4000))
      t.ok(embedSize(e) <= EmbedLimit.total)
    }],
    ['a 5,000-character description is cut to 4,096 with an ellipsis', { description: 'x'.repeat(5000) }, (t, e) => {
      t.equal(textLength(e.description ?? ''), 4096)
      t.ok(e.description?.endsWith('x…'))
    }],
    ['a 5,000-emoji description is cut by code points, never mid-emoji', { description: '😀'.repeat(5000) }, (t, e) => {
      t.equal(e.description, `${'😀'.repeat(4095)}…`)
    }],
    ['markdown in a username cannot break the profile link', { platformUsername: 'a](http://evil)[b' }, (t, e) => {
      t.equal(e.fields.find((f) => f.name === 'Player')?.value, '[a\\](http://evil)\\[b](https://www.roblox.com/users/4242/profile) (4242)')
    }],
    ['control characters become spaces', { description: 'a\u0000b\u0007c' }, (t, e) => {
      t.equal(e.description, 'a b c')
    }],
    ['a blank description is left out', { description: '   ' }, (t, e) => {
      t.equal(e.description, undefined)
    }],
    ['long labels are cut at the title and field limits', { eventType: 'e'.repeat(300), issuedBy: 'i'.repeat(2000), source: 's'.repeat(2000) }, (t, e) => {
      t.equal(textLength(e.title), 256)
      t.ok(e.title.endsWith('…'))
      for (const f of e.fields) t.ok(textLength(f.value) <= 1024, f.name)
    }],
    ['an entry whose fields are all at their limits still fits 6,000 characters (the description gives way)', {
      eventType: 'e'.repeat(1100),
      issuedBy: 'i'.repeat(1100),
      source: 's'.repeat(1100),
      platformUsername: 'u'.repeat(1100),
      description: 'd'.repeat(4096),
    }, (t, e) => {
      t.equal(embedSize(e), 6000)
      t.ok(e.description?.endsWith('d…'))
    }],
  ]
  for (const [name, change, check] of cases) {
    t.test(name, async (t) => check(t, renderEntryEmbed({ ...base, ...change })))
  }
})

t.test('every message allows no mentions at all', async (t) => {
  t.same(messagePayload([renderEntryEmbed({ ...base, description: '@everyone' })]).allowed_mentions, { parse: [] })
  t.same(messagePayload([]), { embeds: [], allowed_mentions: { parse: [] } })
})

t.test('escapeMarkdown', async (t) => {
  // What Discord displays: its markdown drops the backslash before any punctuation.
  const shown = (text: string) => text.replace(/\\([^0-9A-Za-z\s])/g, '$1')
  const cases: Array<[string, string, string]> = [
    ['a masked link', '[Appeal here](https://evil)', '\\[Appeal here\\](https://evil)'],
    ['bold, italics, underline, strike', '**b** *i* __u__ ~~s~~', '\\*\\*b\\*\\* \\*i\\* \\_\\_u\\_\\_ \\~\\~s\\~\\~'],
    ['code and spoilers', '`x` ```y``` ||z||', '\\`x\\` \\`\\`\\`y\\`\\`\\` \\|\\|z\\|\\|'],
    ['mentions, timestamps and emoji', '@everyone <@1> <t:1:R> <:e:2>', '\\@everyone \\<\\@1\\> \\<t:1:R\\> \\<:e:2\\>'],
    ['line starts: headings, subtext, quotes, lists', '# h\n  ## h2\n-# s\n> q\n>>> qq\n- a\n+ b\n10. c', '\\# h\n  \\## h2\n\\-# s\n\\> q\n\\>\\>\\> qq\n\\- a\n\\+ b\n10\\. c'],
    ['a backslash itself', 'a\\*b', 'a\\\\\\*b'],
    ['plain text, parentheses and mid-line signs stay as they are', 'Newbie (123) joined - 5. ok # 1 😀', 'Newbie (123) joined - 5. ok # 1 😀'],
    ['empty', '', ''],
  ]
  for (const [name, input, escaped] of cases) {
    t.equal(escapeMarkdown(input), escaped, name)
    t.equal(shown(escapeMarkdown(input)), input, `${name}: shown as typed`)
  }
  const long = '*'.repeat(4000)
  t.equal(renderEntryEmbed({ ...base, description: long }).description, `${'\\*'.repeat(2047)}\\…`, 'escaping counts toward the limit; the cut stays within 4,096')
})
