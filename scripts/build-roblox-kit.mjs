// `npm run build:roblox`: writes the two generated forms of the Roblox module from its source folder
// clients/roblox/PresenceLink/ (init.lua, the ModuleScript, and one .lua file per child ModuleScript, Rojo's layout):
//   clients/roblox/PresenceLink.rbxmx       the PresenceLink kit as a Roblox XML model (format version 4) that Studio
//                                           inserts by drag and drop or File → Import
//   clients/roblox/PresenceLink.single.lua  the same module as one script, for those who paste one ModuleScript
// The model holds one folder, PresenceLinkKit, whose two folders say where their contents go:
//   ServerScriptService/  PresenceLink (ModuleScript: init.lua, with a child ModuleScript per other file of the
//                         folder, each byte for byte) and PresenceLinkServer (Script: clients/roblox/kit/PresenceLinkServer.server.lua)
//   StarterGui/           PresenceLinkGui (ScreenGui: a panel with a code box, a Link button, a status line and the
//                         player's activity line) with LinkCodeClient (LocalScript: clients/roblox/kit/LinkCodeClient.client.lua)
// The single script holds each file's text in a function of its own and gives it the `script` and `require` a
// ModuleScript of the tree would see, so the same code runs either way.
// The output is deterministic (referents are counted, properties sorted by name, children by file name), so the
// committed files can be checked: `node scripts/build-roblox-kit.mjs --check` exits 1 when either differs from what
// would be written. Pure Node, no dependency.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(root, 'clients/roblox/PresenceLink.rbxmx')
const SINGLE = join(root, 'clients/roblox/PresenceLink.single.lua')
/** The module's source folder: init.lua and its children. */
export const MODULE_DIR = 'clients/roblox/PresenceLink'

/** A source file's text; refuses characters XML 1.0 cannot carry. */
function source(path) {
  const text = readFileSync(join(root, path), 'utf8')
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(text)
  if (bad !== null) throw new Error(`${path}: character U+${bad[0].charCodeAt(0).toString(16).padStart(4, '0')} cannot be written in XML`)
  return text
}

const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const escapeAttribute = (s) => escapeText(s).replace(/"/g, '&quot;')
// A CDATA section cannot contain "]]>": it is split between two sections there.
const cdata = (s) => `<![CDATA[${s.replace(/\]\]>/g, ']]]]><![CDATA[>')}]]>`
const number = (n) => {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`)
  return String(n)
}

// Property values by XML type: [type, name, inner XML].
const prop = {
  string: (name, value) => ['string', name, escapeText(value)],
  source: (value) => ['ProtectedString', 'Source', cdata(value)],
  bool: (name, value) => ['bool', name, value ? 'true' : 'false'],
  int: (name, value) => ['int', name, number(value)],
  float: (name, value) => ['float', name, number(value)],
  token: (name, value) => ['token', name, number(value)],
  udim2: (name, xs, xo, ys, yo) => ['UDim2', name, `<XS>${number(xs)}</XS><XO>${number(xo)}</XO><YS>${number(ys)}</YS><YO>${number(yo)}</YO>`],
  vector2: (name, x, y) => ['Vector2', name, `<X>${number(x)}</X><Y>${number(y)}</Y>`],
  color3: (name, r, g, b) => ['Color3', name, `<R>${number(r)}</R><G>${number(g)}</G><B>${number(b)}</B>`],
}

// Enum values as Roblox numbers them.
const TextXAlignment = { Left: 0 }
const TextYAlignment = { Top: 0 }
const ZIndexBehavior = { Sibling: 1 }

/** An instance: its class, Name, other properties and children. */
const item = (className, name, props = [], children = []) => ({ className, props: [prop.string('Name', name), ...props], children })

const WHITE = [1, 1, 1]
const label = (name, y, height, size, color, text = '') =>
  item('TextLabel', name, [
    prop.float('BackgroundTransparency', 1),
    prop.udim2('Position', 0, 12, 0, y),
    prop.udim2('Size', 1, -24, 0, height),
    prop.string('Text', text),
    prop.color3('TextColor3', ...color),
    prop.float('TextSize', size),
    prop.bool('TextWrapped', true),
    prop.token('TextXAlignment', TextXAlignment.Left),
    prop.token('TextYAlignment', TextYAlignment.Top),
  ])

/** The child ModuleScripts' names, in order: every .lua file of the folder but init.lua. */
export function childModules() {
  return readdirSync(join(root, MODULE_DIR))
    .filter((f) => f.endsWith('.lua') && f !== 'init.lua')
    .map((f) => f.slice(0, -'.lua'.length))
    .sort()
}

/** The PresenceLink ModuleScript with its children. */
function moduleScript() {
  const children = childModules().map((name) => item('ModuleScript', name, [prop.source(source(`${MODULE_DIR}/${name}.lua`))]))
  return item('ModuleScript', 'PresenceLink', [prop.source(source(`${MODULE_DIR}/init.lua`))], children)
}

/** The module as one script: each file in a function of its own, given the `script` and `require` it expects. */
export function single() {
  const names = childModules()
  const lines = [
    '--[[',
    'PresenceLink as one ModuleScript, for those who paste one script: paste this whole file into a ModuleScript named',
    'PresenceLink directly in ServerScriptService, then require it as usual:',
    '',
    '  local PresenceLink = require(ServerScriptService:WaitForChild("PresenceLink"))',
    '',
    `Generated by \`npm run build:roblox\` from ${MODULE_DIR}/ (init.lua and its child ModuleScripts ${names.join(', ')}),`,
    'whose code it holds unchanged, each file in a function of its own; edit those files, not this one. The model',
    'clients/roblox/PresenceLink.rbxmx holds the same files as a ModuleScript with children.',
    ']]',
    '',
    'local sources = {}',
    '',
  ]
  for (const name of ['init', ...names]) {
    lines.push(`-- ${MODULE_DIR}/${name}.lua`, `sources[${JSON.stringify(name)}] = function(script, require)`, source(`${MODULE_DIR}/${name}.lua`).replace(/\n$/, ''), 'end', '')
  }
  lines.push(
    '-- What the files see: `script` (init.lua) names the children, a child\'s `script.Parent` is init.lua\'s, and require',
    '-- runs each file once, as require does with a ModuleScript.',
    'local engineRequire = require',
    'local loaded = {}',
    'local tree = {}',
    'local names = {}',
    `for _, name in ipairs({ ${names.map((n) => JSON.stringify(n)).join(', ')} }) do`,
    '  local child = { Name = name }',
    '  tree[name] = child',
    '  names[child] = name',
    'end',
    'local function load(name)',
    '  if loaded[name] == nil then',
    '    local child = { Parent = tree }',
    '    local function localRequire(target)',
    '      if names[target] ~= nil then',
    '        return load(names[target])',
    '      end',
    '      return engineRequire(target)',
    '    end',
    '    loaded[name] = { value = sources[name](name == "init" and tree or child, localRequire) }',
    '  end',
    '  return loaded[name].value',
    'end',
    '',
    'return load("init")',
  )
  return `${lines.join('\n')}\n`
}

/** The kit's instance tree. */
export function kit() {
  const panel = item(
    'Frame',
    'Panel',
    [
      prop.vector2('AnchorPoint', 0, 1),
      prop.color3('BackgroundColor3', 0.12, 0.12, 0.14),
      prop.float('BackgroundTransparency', 0.1),
      prop.int('BorderSizePixel', 0),
      prop.udim2('Position', 0, 16, 1, -16),
      prop.udim2('Size', 0, 300, 0, 150),
    ],
    [
      label('Title', 8, 22, 18, WHITE, 'Link your Discord'),
      item('TextBox', 'CodeBox', [
        prop.color3('BackgroundColor3', 0.95, 0.95, 0.96),
        prop.int('BorderSizePixel', 0),
        prop.bool('ClearTextOnFocus', false),
        prop.string('PlaceholderText', 'Code from /code, like K7QX'),
        prop.udim2('Position', 0, 12, 0, 36),
        prop.udim2('Size', 1, -100, 0, 32),
        prop.string('Text', ''),
        prop.color3('TextColor3', 0.1, 0.1, 0.12),
        prop.float('TextSize', 18),
      ]),
      item('TextButton', 'LinkButton', [
        prop.color3('BackgroundColor3', 0.345, 0.396, 0.949),
        prop.int('BorderSizePixel', 0),
        prop.udim2('Position', 1, -80, 0, 36),
        prop.udim2('Size', 0, 68, 0, 32),
        prop.string('Text', 'Link'),
        prop.color3('TextColor3', ...WHITE),
        prop.float('TextSize', 18),
      ]),
      label('Status', 74, 36, 14, [0.85, 0.85, 0.88]),
      label('Activity', 114, 28, 14, [0.6, 0.8, 1]),
    ],
  )
  return item('Folder', 'PresenceLinkKit', [], [
    item('Folder', 'ServerScriptService', [], [
      moduleScript(),
      item('Script', 'PresenceLinkServer', [prop.source(source('clients/roblox/kit/PresenceLinkServer.server.lua'))]),
    ]),
    item('Folder', 'StarterGui', [], [
      item('ScreenGui', 'PresenceLinkGui', [prop.bool('ResetOnSpawn', false), prop.token('ZIndexBehavior', ZIndexBehavior.Sibling)], [
        panel,
        item('LocalScript', 'LinkCodeClient', [prop.source(source('clients/roblox/kit/LinkCodeClient.client.lua'))]),
      ]),
    ]),
  ])
}

/** The model file's text. */
export function render(tree) {
  let next = 0
  const lines = ['<roblox version="4">']
  const write = (node, depth) => {
    const pad = '\t'.repeat(depth)
    const referent = `RBX${(next++).toString(16).toUpperCase().padStart(32, '0')}`
    lines.push(`${pad}<Item class="${escapeAttribute(node.className)}" referent="${referent}">`)
    lines.push(`${pad}\t<Properties>`)
    const sorted = [...node.props].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    for (const [type, name, inner] of sorted) lines.push(`${pad}\t\t<${type} name="${escapeAttribute(name)}">${inner}</${type}>`)
    lines.push(`${pad}\t</Properties>`)
    for (const child of node.children) write(child, depth + 1)
    lines.push(`${pad}</Item>`)
  }
  write(tree, 1)
  lines.push('</roblox>')
  return `${lines.join('\n')}\n`
}

/** The line printed for a written file: its size in bytes as written (UTF-8), not its length in characters. */
export function wroteLine(name, text) {
  return `wrote ${name} (${Buffer.byteLength(text, 'utf8')} bytes)`
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outputs = [
    [OUT, 'clients/roblox/PresenceLink.rbxmx', render(kit())],
    [SINGLE, 'clients/roblox/PresenceLink.single.lua', single()],
  ]
  if (process.argv.includes('--check')) {
    let stale = 0
    for (const [path, name, text] of outputs) {
      let committed = ''
      try {
        committed = readFileSync(path, 'utf8')
      } catch {
        // missing: differs
      }
      if (committed !== text) {
        process.stderr.write(`${name} is not what npm run build:roblox writes: run it and commit the result\n`)
        stale += 1
      } else {
        process.stdout.write(`${name} is up to date\n`)
      }
    }
    if (stale > 0) process.exit(1)
  } else {
    for (const [path, name, text] of outputs) {
      writeFileSync(path, text)
      process.stdout.write(`${wroteLine(name, text)}\n`)
    }
  }
}
