/** Activity filtering, ordering, sanitizing and rendering (src/presence/model/activity.ts), table-driven with hostile input. */
import t from 'tap'
import {
  type ActivityInput,
  MAX_ACTIVITIES,
  MAX_TEXT_LENGTH,
  keepActivity,
  mentionsPlatform,
  renderActivityGroups,
  sanitizeText,
} from '../../../src/presence/model/activity.js'

const PLATFORM = 'Roblox'
const FAMILY = '👨‍👩‍👧‍👦'
const THUMB = '👍🏽'
const RAINBOW = '🏳️‍🌈'
const FLAGS = '🇯🇵🇫🇷'
// Every bidirectional formatting character and mark: the embeddings, overrides and their end, the isolates and
// their end, and the three marks.
const BIDI_CONTROLS: ReadonlyArray<[string, string]> = [
  ['LRE', '\u202A'], ['RLE', '\u202B'], ['PDF', '\u202C'], ['LRO', '\u202D'], ['RLO', '\u202E'], ['LRI', '\u2066'],
  ['RLI', '\u2067'], ['FSI', '\u2068'], ['PDI', '\u2069'], ['LRM', '\u200E'], ['RLM', '\u200F'], ['ALM', '\u061C'],
]
const at = (text: string, i: number, insert: string): string => `${text.slice(0, i)}${insert}${text.slice(i)}`

t.test('sanitizeText', async (t) => {
  t.equal(MAX_TEXT_LENGTH, 100)
  const cases: Array<{ name: string; input: string; max?: number; want: string }> = [
    { name: 'plain text passes unchanged', input: 'Blinding Lights', want: 'Blinding Lights' },
    { name: 'a newline becomes a space', input: 'Blinding\nLights', want: 'Blinding Lights' },
    { name: 'a \\r\\n becomes one space', input: 'Blinding\r\nLights', want: 'Blinding Lights' },
    { name: 'a ; becomes a ,', input: 'The Weeknd; Daft Punk', want: 'The Weeknd, Daft Punk' },
    { name: 'a block header as a song title is defused', input: '{ABCD;', want: '(ABCD,' },
    { name: 'a } alone becomes )', input: '}', want: ')' },
    { name: 'a { alone becomes (', input: '{', want: '(' },
    { name: 'double quotes become single quotes', input: '"Detection Paused";', want: "'Detection Paused'," },
    { name: 'tabs become spaces and runs collapse', input: '\t\ta\t \tb\t', want: 'a b' },
    { name: 'U+2028 and U+2029 separate words like a newline', input: 'a\u2028b\u2029c', want: 'a b c' },
    { name: 'NEL separates words like a newline', input: 'a\u0085b', want: 'a b' },
    { name: 'bidi overrides are removed', input: '\u202Egnp.exe\u202C', want: 'gnp.exe' },
    { name: 'bidi isolates are removed', input: '\u2066a\u2067b\u2068c\u2069', want: 'abc' },
    { name: 'NUL is removed', input: 'nul\u0000byte', want: 'nulbyte' },
    { name: 'DEL and C1 controls are removed', input: 'a\u007Fb\u009Bc\u0080d', want: 'abcd' },
    { name: 'a terminal escape loses its ESC', input: '\u001B[31mred', want: '[31mred' },
    { name: 'zero-width characters are removed', input: 'R\u200Bo\u200Cb\uFEFFlox', want: 'Roblox' },
    { name: 'a zero-width joiner between letters is removed', input: 'Rob\u200Dlox', want: 'Roblox' },
    { name: 'a lone surrogate is removed', input: 'a\uD800b\uDC00c', want: 'abc' },
    { name: 'LRM and RLM are removed', input: 'a\u200Eb\u200Fc', want: 'abc' },
    { name: 'a word joiner is removed', input: 'word\u2060joiner', want: 'wordjoiner' },
    { name: 'a soft hyphen is removed', input: 'soft\u00ADhyphen', want: 'softhyphen' },
    { name: 'an Arabic letter mark and invisible operators are removed', input: 'a\u061Cb\u2062c\u2064d', want: 'abcd' },
    { name: 'a Hangul filler (an invisible name) is removed', input: '\u3164\u3164', want: '' },
    { name: 'stray tag characters are removed', input: 'a\u{E0041}b', want: 'ab' },
    { name: 'a tag-sequence flag survives', input: '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', want: '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}' },
    { name: 'a text-style variation selector survives', input: '\u2764\uFE0E', want: '\u2764\uFE0E' },
    { name: 'a skin-tone emoji survives', input: `ok ${THUMB}`, want: `ok ${THUMB}` },
    { name: 'a ZWJ family survives', input: `${FAMILY} trip`, want: `${FAMILY} trip` },
    { name: 'a ZWJ flag sequence survives', input: RAINBOW, want: RAINBOW },
    { name: 'regional indicator flags survive', input: FLAGS, want: FLAGS },
    { name: 'non-breaking and ideographic spaces collapse', input: 'a\u00A0\u3000b', want: 'a b' },
    { name: 'empty text stays empty', input: '', want: '' },
    { name: 'whitespace only becomes empty', input: ' \n\t\r\n\u2028 ', want: '' },
    { name: 'invisible characters only become empty', input: '\u0000\u200B\u202E\uFEFF', want: '' },
    { name: 'exactly 100 characters are kept', input: 'a'.repeat(100), want: 'a'.repeat(100) },
    { name: '101 characters are cut to 99 and an ellipsis', input: 'a'.repeat(101), want: `${'a'.repeat(99)}…` },
    { name: 'a 4,000-character string is cut', input: 'x'.repeat(4000), want: `${'x'.repeat(99)}…` },
    { name: 'length counts code points, not UTF-16 units', input: '😀'.repeat(100), want: '😀'.repeat(100) },
    { name: 'emoji are cut whole', input: '😀'.repeat(101), want: `${'😀'.repeat(99)}…` },
    {
      name: 'an emoji ending exactly at the cut point is kept',
      input: `${'a'.repeat(98)}😀bb`,
      want: `${'a'.repeat(98)}😀…`,
    },
    {
      name: 'a skin-tone emoji straddling the cut point is dropped whole',
      input: `${'a'.repeat(98)}${THUMB}b`,
      want: `${'a'.repeat(98)}…`,
    },
    {
      name: 'a ZWJ family straddling the cut point is dropped whole',
      input: `${'a'.repeat(95)}${FAMILY}b`,
      want: `${'a'.repeat(95)}…`,
    },
    {
      name: 'a flag straddling the cut point is dropped whole',
      input: `${'a'.repeat(98)}🇯🇵b`,
      want: `${'a'.repeat(98)}…`,
    },
    { name: 'a space before the cut is not kept', input: `${'a'.repeat(98)} bcd`, want: `${'a'.repeat(98)}…` },
    {
      name: 'one cluster longer than the budget is cut by code points',
      input: `a${'\u0301'.repeat(200)}`,
      want: `a${'\u0301'.repeat(98)}…`,
    },
    { name: 'a smaller max cuts earlier', input: 'abcdef', max: 4, want: 'abc…' },
    {
      name: 'sanitizing happens before measuring',
      input: `${'\u200B'.repeat(50)}${'a'.repeat(100)}`,
      want: 'a'.repeat(100),
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.equal(sanitizeText(c.input, c.max), c.want)
    })
  }
  for (const [name, control] of BIDI_CONTROLS) {
    for (const at of [0, 8, 15]) {
      t.test(`${name} at ${at} is removed`, async (t) => {
        t.equal(sanitizeText(`${'Blinding Lights'.slice(0, at)}${control}${'Blinding Lights'.slice(at)}`), 'Blinding Lights')
      })
    }
  }
})

t.test('mentionsPlatform', async (t) => {
  const cases: Array<{ name: string; activity: ActivityInput; platform?: string; want: boolean }> = [
    { name: 'the platform as the name', activity: { type: 0, name: 'Roblox' }, want: true },
    { name: 'the platform inside details', activity: { type: 0, name: 'Game', details: 'on roblox now' }, want: true },
    { name: 'the platform inside state', activity: { type: 0, name: 'Game', state: 'ROBLOX' }, want: true },
    { name: 'the platform in odd case', activity: { type: 0, name: 'rObLoX Studio' }, want: true },
    {
      name: 'a platform name given in odd case',
      activity: { type: 0, name: 'Roblox' },
      platform: 'rObLoX',
      want: true,
    },
    { name: 'large_text asset', activity: { type: 0, name: 'G', assets: { large_text: 'Roblox' } }, want: true },
    { name: 'small_text asset', activity: { type: 0, name: 'G', assets: { small_text: 'roblox' } }, want: true },
    { name: 'largeText asset', activity: { type: 0, name: 'G', assets: { largeText: 'Roblox' } }, want: true },
    { name: 'smallText asset', activity: { type: 0, name: 'G', assets: { smallText: 'ROBLOX' } }, want: true },
    { name: 'hidden with a zero-width space', activity: { type: 0, name: 'R\u200Boblox' }, want: true },
    { name: 'hidden with a zero-width joiner', activity: { type: 0, name: 'G', details: 'Rob\u200Dlox' }, want: true },
    { name: 'hidden with a bidi override', activity: { type: 0, name: 'G', state: 'Rob\u202Elox' }, want: true },
    { name: 'hidden with a soft hyphen', activity: { type: 0, name: 'Rob\u00ADlox' }, want: true },
    { name: 'written in fullwidth letters', activity: { type: 0, name: 'Ｒｏｂｌｏｘ' }, want: true },
    {
      name: 'hidden past the cut length',
      activity: { type: 0, name: 'G', details: `${'a'.repeat(200)}Roblox` },
      want: true,
    },
    { name: 'an unrelated game', activity: { type: 0, name: 'Minecraft', details: 'Survival' }, want: false },
    {
      name: 'null fields and null assets',
      activity: { type: 2, name: 'Spotify', details: null, state: null, assets: null },
      want: false,
    },
    {
      name: 'unrelated assets in both spellings',
      activity: { type: 0, name: 'G', assets: { large_text: 'a', small_text: 'b', largeText: 'c', smallText: 'd' } },
      want: false,
    },
    { name: 'a name split by a real space', activity: { type: 0, name: 'Rob lox' }, want: false },
    { name: 'Greek omicrons', activity: { type: 0, name: 'R\u03BFbl\u03BFx' }, want: true },
    { name: 'a capital I for the l', activity: { type: 0, name: 'RobIox' }, want: true },
    { name: 'zeros for the o', activity: { type: 0, name: 'G', details: 'R0bl0x' }, want: true },
    { name: 'small capitals', activity: { type: 0, name: 'G', state: '\u0280\u1D0F\u0299\u029F\u1D0Fx' }, want: true },
    { name: 'letters spaced out', activity: { type: 0, name: 'R o b l o x' }, want: true },
    { name: 'letters dotted', activity: { type: 0, name: 'G', assets: { large_text: 'R.o.b.l.o.x' } }, want: true },
    { name: 'the name split across a line break', activity: { type: 0, name: 'G', details: 'Rob\nlox' }, want: true },
    { name: 'ordinary words that merely meet', activity: { type: 0, name: 'Pro Blox Racing' }, want: false },
    { name: 'a song by someone called Rob Loxley', activity: { type: 2, name: 'Spotify', details: 'Rob Loxley' }, want: false },
    { name: 'an ordinary game with m in it', activity: { type: 0, name: 'Minecraft' }, want: false },
    // Drawn by a bidirectional renderer as the name.
    { name: 'a right-to-left override before the name reversed', activity: { type: 0, name: '\u202Exolbor' }, want: true },
    { name: 'an override in details', activity: { type: 2, name: 'Spotify', details: '\u202Exolbor' }, want: true },
    { name: 'an override in state', activity: { type: 3, name: 'YouTube', state: '\u202Exolbor' }, want: true },
    { name: 'an override in an asset', activity: { type: 0, name: 'G', assets: { smallText: '\u202Exolbor' } }, want: true },
    { name: 'an override on capitals and zeros', activity: { type: 0, name: '\u202EX0LB0R' }, want: true },
    { name: 'an override closed inside a sentence', activity: { type: 0, name: 'My \u202Exolbor\u202C game' }, want: true },
    { name: 'an override inside an isolate', activity: { type: 0, name: '\u2067\u202Exolbor\u202C\u2069' }, want: true },
    { name: 'an override after an emoji', activity: { type: 0, name: '\u{1F3AE} \u202Exolbor' }, want: true },
    {
      name: 'an override after 4,000 characters',
      activity: { type: 0, name: 'G', details: `${'x'.repeat(4000)} \u202Exolbor` },
      want: true,
    },
    { name: 'a right-to-left embedding and mark swapping the halves', activity: { type: 0, name: '\u202Blox\u200FRob\u202C' }, want: true },
    { name: 'a right-to-left isolate and mark swapping the halves', activity: { type: 0, name: '\u2067lox\u200FRob\u2069' }, want: true },
    { name: 'right-to-left marks alone swapping the halves', activity: { type: 0, name: '\u200Flox\u200FRob' }, want: true },
    { name: 'Arabic letter marks alone swapping the halves', activity: { type: 0, name: '\u061Clox\u061CRob' }, want: true },
    { name: 'Hebrew look-alikes drawn reversed', activity: { type: 0, name: 'Rob\u05E1\u05D5x' }, want: true },
    { name: 'the name merely reversed', activity: { type: 0, name: 'xolbor' }, want: false },
    { name: 'an override closed too early', activity: { type: 0, name: '\u202Exol\u202Cbor' }, want: false },
    { name: 'an override at the very end', activity: { type: 0, name: 'xolbor\u202E' }, want: false },
    { name: 'a Hebrew song with a Latin name', activity: { type: 2, name: 'Spotify', details: '\u05E9\u05DC\u05D5\u05DD Robin' }, want: false },
    { name: 'an Arabic title with a number', activity: { type: 3, name: 'YouTube', details: '\u0627\u0644 12.5%' }, want: false },
  ]
  for (const c of cases) {
    t.test(`${c.want ? 'is true for' : 'is false for'} ${c.name}`, async (t) => {
      t.equal(mentionsPlatform(c.activity, c.platform ?? PLATFORM), c.want)
    })
  }
  for (const [name, control] of BIDI_CONTROLS) {
    for (let i = 0; i <= PLATFORM.length; i++) {
      t.test(`is true for the name with ${name} at ${i}`, async (t) => {
        t.equal(mentionsPlatform({ type: 0, name: at(PLATFORM, i, control) }, PLATFORM), true)
      })
    }
    for (let i = 0; i <= 'Pro Blox Racing'.length; i++) {
      // A right-to-left embedding or isolate opened just before the space draws that space at its far end, so the
      // line reads `ProBlox Racing ` (GNU FriBidi draws it so too).
      const joined = i === 3 && (name === 'RLE' || name === 'RLI')
      t.test(`is ${joined} for Pro Blox Racing with ${name} at ${i}`, async (t) => {
        t.equal(mentionsPlatform({ type: 0, name: at('Pro Blox Racing', i, control) }, PLATFORM), joined)
      })
    }
  }
  for (const [name, mark] of [['LRM', '\u200E'], ['RLM', '\u200F'], ['ALM', '\u061C'], ['ZWJ', '\u200D']]) {
    for (let i = 0; i <= 'xolbor'.length; i++) {
      t.test(`is true for the overridden name with ${name} at ${i}`, async (t) => {
        t.equal(mentionsPlatform({ type: 0, name: `\u202E${at('xolbor', i, mark!)}` }, PLATFORM), true)
      })
    }
  }
})

t.test('mentionsPlatform across the lines a block shows', async (t) => {
  const cases: Array<{ name: string; activity: ActivityInput; want: boolean }> = []
  for (let i = 1; i < PLATFORM.length; i++) {
    const [a, b] = [PLATFORM.slice(0, i), PLATFORM.slice(i)]
    const cut = `${a}|${b}`
    cases.push(
      { name: `${cut} as music title and artist`, activity: { type: 2, name: 'Spotify', details: a, state: b }, want: true },
      { name: `${cut} as a video's details and state`, activity: { type: 3, name: 'YouTube', details: a, state: b }, want: true },
      { name: `${cut} as the application in the label and the title`, activity: { type: 2, name: a, details: b }, want: true },
      { name: `${cut} as the platform streamed on and the title`, activity: { type: 1, name: a, details: b }, want: true },
      { name: `${cut} as a video's label and details`, activity: { type: 3, name: a, details: b }, want: true },
      {
        name: `${cut} with zero-width joiners between`,
        activity: { type: 2, name: 'Spotify', details: `${a}\u200D`, state: `\u200D${b}` },
        want: true,
      },
      {
        name: `${cut} with Greek omicrons in the first half`,
        activity: { type: 2, name: 'Spotify', details: a.replace(/o/g, '\u03BF'), state: b },
        want: true,
      },
      {
        name: `${cut} with zeros and a capital I in the second half`,
        activity: { type: 2, name: 'Spotify', details: a, state: b.replace(/o/g, '0').replace(/l/g, 'I') },
        want: true,
      },
      {
        name: `${cut} among emoji`,
        activity: { type: 2, name: 'Spotify', details: `\u{1F3AE} ${a}`, state: `${b} ${FAMILY}` },
        want: true,
      },
      { name: `${cut} with newlines`, activity: { type: 2, name: 'Spotify', details: `${a}\n`, state: `\r\n${b}` }, want: true },
      { name: `${cut} in sentences`, activity: { type: 2, name: 'Spotify', details: `I love ${a}`, state: `${b} so much` }, want: true },
      {
        name: `${cut} after 4,000 characters`,
        activity: { type: 2, name: 'Spotify', details: `${'x'.repeat(4000)}${a}`, state: b },
        want: true,
      },
      {
        name: `${cut} with a line left out between`,
        activity: { type: 3, name: a, details: '\u200B', state: b },
        want: true,
      },
      {
        name: `${cut} reversed by an override in one half`,
        activity: { type: 2, name: 'Spotify', details: a, state: `\u202E${[...b].reverse().join('')}` },
        want: true,
      },
      // A game shows only its name: its details are not on the next line.
      { name: `${cut} as a game's name and its unshown details`, activity: { type: 0, name: a, details: b }, want: false },
      { name: `${cut} with a shown line between`, activity: { type: 3, name: a, details: 'Song', state: b }, want: false },
    )
  }
  for (let i = 1; i < PLATFORM.length - 1; i++) {
    for (let j = i + 1; j < PLATFORM.length; j++) {
      const [a, b, c] = [PLATFORM.slice(0, i), PLATFORM.slice(i, j), PLATFORM.slice(j)]
      cases.push({ name: `${a}|${b}|${c} across three lines`, activity: { type: 2, name: a, details: b, state: c }, want: true })
    }
  }
  cases.push(
    // A line break between two words counts, as it does inside one text.
    { name: 'two words that meet across a line break', activity: { type: 2, name: 'Spotify', details: 'Pro', state: 'Blox Racing' }, want: true },
    { name: 'two words that meet at a space on one line', activity: { type: 2, name: 'Spotify', details: 'Pro Blox Racing', state: 'OST' }, want: false },
    { name: 'ordinary lines', activity: { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd' }, want: false },
  )
  for (const c of cases) {
    t.test(`${c.want ? 'is true for' : 'is false for'} ${c.name}`, async (t) => {
      t.equal(mentionsPlatform(c.activity, PLATFORM), c.want)
    })
  }
})

t.test('keepActivity', async (t) => {
  const cases: Array<{ name: string; activity: ActivityInput; want: boolean }> = [
    { name: 'a game is kept', activity: { type: 0, name: 'Minecraft' }, want: true },
    { name: 'a stream is kept', activity: { type: 1, name: 'Twitch', url: 'https://twitch.tv/x' }, want: true },
    { name: 'music is kept', activity: { type: 2, name: 'Spotify', details: 'Song' }, want: true },
    { name: 'watching is kept', activity: { type: 3, name: 'YouTube' }, want: true },
    { name: 'competing is kept', activity: { type: 5, name: 'Arena' }, want: true },
    { name: 'custom status is hidden', activity: { type: 4, name: 'Custom Status', state: 'chilling' }, want: false },
    {
      name: 'custom status naming the game is hidden',
      activity: { type: 4, name: 'Custom Status', state: 'Roblox!' },
      want: false,
    },
    { name: 'an unknown type is hidden', activity: { type: 7, name: 'Future' }, want: false },
    { name: 'a negative type is hidden', activity: { type: -1, name: 'Broken' }, want: false },
    { name: 'an empty name is hidden', activity: { type: 0, name: '' }, want: false },
    { name: 'a name of invisible characters is hidden', activity: { type: 0, name: '\u200B\u202E\n' }, want: false },
    { name: 'an activity that mentions the platform is hidden', activity: { type: 0, name: 'Roblox' }, want: false },
    { name: 'an activity drawn as the platform by an override is hidden', activity: { type: 0, name: '\u202Exolbor' }, want: false },
    { name: 'music with the platform cut between its lines is hidden', activity: { type: 2, name: 'Rob', details: 'lox' }, want: false },
    {
      name: 'music that mentions the platform in an asset is hidden',
      activity: { type: 2, name: 'Spotify', assets: { largeText: 'Roblox OST' } },
      want: false,
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.equal(keepActivity(c.activity, PLATFORM), c.want)
    })
  }
})

t.test('renderActivityGroups', async (t) => {
  t.equal(MAX_ACTIVITIES, 5)
  const games = (n: number): ActivityInput[] =>
    Array.from({ length: n }, (_, i) => ({ type: 0, name: `Game ${i + 1}` }))
  const cases: Array<{ name: string; activities: ActivityInput[]; want: string }> = [
    {
      name: 'Spotify and a game render as the spec example',
      activities: [
        { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd' },
        { type: 0, name: 'Minecraft' },
      ],
      want: 'Listening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n',
    },
    {
      name: 'Spotify artists separated by ; become a comma list',
      activities: [{ type: 2, name: 'Spotify', details: 'One More Time', state: 'Daft Punk; Romanthony' }],
      want: 'Listening to Spotify,\nOne More Time,\nDaft Punk, Romanthony;\n',
    },
    {
      name: 'a game shows only its name even with details and state',
      activities: [{ type: 0, name: 'Minecraft', details: 'Survival', state: 'In a world' }],
      want: 'Playing,\nMinecraft;\n',
    },
    { name: 'competing shows its name', activities: [{ type: 5, name: 'Arena' }], want: 'Competing in,\nArena;\n' },
    {
      name: 'a stream shows its title and game',
      activities: [
        { type: 1, name: 'Twitch', details: 'Speedrun night', state: 'Celeste', url: 'https://twitch.tv/x' },
      ],
      want: 'Streaming on Twitch,\nSpeedrun night,\nCeleste;\n',
    },
    {
      name: 'watching shows details and state',
      activities: [{ type: 3, name: 'YouTube', details: 'A video', state: 'A channel' }],
      want: 'Watching YouTube,\nA video,\nA channel;\n',
    },
    {
      name: 'an empty details line is skipped',
      activities: [{ type: 2, name: 'Spotify', details: '\u200B', state: 'The Weeknd' }],
      want: 'Listening to Spotify,\nThe Weeknd;\n',
    },
    {
      name: 'an empty state line moves the ; to the line before',
      activities: [{ type: 2, name: 'Spotify', details: 'Blinding Lights', state: '  ' }],
      want: 'Listening to Spotify,\nBlinding Lights;\n',
    },
    {
      name: 'a group with only its label ends on the label',
      activities: [{ type: 3, name: 'YouTube', details: null, state: null }],
      want: 'Watching YouTube;\n',
    },
    {
      name: 'hostile song titles cannot open, close or end anything',
      activities: [{ type: 2, name: 'Spotify', details: '{ABCD;\n}\n"x"', state: 'a\r\nb;\tc' }],
      want: "Listening to Spotify,\n(ABCD, ) 'x',\na b, c;\n",
    },
    {
      name: 'a long title is cut and emoji stay whole',
      activities: [{ type: 2, name: `Spotify ${THUMB}`, details: 'x'.repeat(4000), state: `${FAMILY} ${FLAGS}` }],
      want: `Listening to Spotify ${THUMB},\n${'x'.repeat(99)}…,\n${FAMILY} ${FLAGS};\n`,
    },
    {
      name: 'custom status, unknown types and platform mentions are left out',
      activities: [
        { type: 4, name: 'Custom Status', state: 'hi' },
        { type: 9, name: 'Mystery' },
        { type: 0, name: 'Roblox' },
        { type: 2, name: 'Spotify', details: 'Song', state: 'R\u200Boblox band' },
        { type: 0, name: 'Minecraft' },
      ],
      want: 'Playing,\nMinecraft;\n',
    },
    {
      name: 'an activity drawn as the platform is left out and bidirectional controls never reach the block',
      activities: [
        { type: 0, name: '\u202Exolbor' },
        { type: 2, name: 'Spotify', details: '\u2067Blinding Lights\u2069', state: '\u202BThe Weeknd\u202C\u200F' },
      ],
      want: 'Listening to Spotify,\nBlinding Lights,\nThe Weeknd;\n',
    },
    {
      name: 'groups with the platform cut between their lines are left out, ordinary words are kept',
      activities: [
        { type: 2, name: 'Spotify', details: 'Rob', state: 'lox' },
        { type: 3, name: 'Ro', details: 'bl', state: 'ox' },
        { type: 0, name: 'Pro Blox Racing' },
      ],
      want: 'Playing,\nPro Blox Racing;\n',
    },
    {
      name: "a game's details are not shown, so a name cut into them stays",
      activities: [{ type: 0, name: 'Rob', details: 'lox' }],
      want: 'Playing,\nRob;\n',
    },
    { name: 'no activities render nothing', activities: [], want: '' },
    {
      name: 'only hidden activities render nothing',
      activities: [
        { type: 4, name: 'Custom Status', state: 'hi' },
        { type: 0, name: 'rObLoX' },
      ],
      want: '',
    },
    {
      name: 'more than five activities render the first five',
      activities: games(7),
      want: games(5)
        .map((g) => `Playing,\n${g.name};\n`)
        .join(''),
    },
    {
      name: 'hidden activities do not count toward the five',
      activities: [{ type: 4, name: 'Custom Status' }, { type: 0, name: 'Roblox' }, ...games(6)],
      want: games(5)
        .map((g) => `Playing,\n${g.name};\n`)
        .join(''),
    },
  ]
  for (const c of cases) {
    t.test(c.name, async (t) => {
      t.equal(renderActivityGroups(c.activities, PLATFORM), c.want)
    })
  }
})
