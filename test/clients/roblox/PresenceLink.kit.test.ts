/**
 * The kit (clients/roblox/PresenceLink.rbxmx and PresenceLink.single.lua, written by `npm run build:roblox` from the
 * module's folder clients/roblox/PresenceLink/): the committed model parses as strict XML in Roblox's model format
 * (version 4), holds the instances the guide names where it names them, its ModuleScript's source is the folder's
 * init.lua exactly with one child ModuleScript per other file (each its file, byte for byte; each script's source is
 * its file), and both are what the build writes now. No file of the module is over 500 lines. The module is placed the
 * same way in its header, the guide, the reference and the kit, and every file compiles under Luau. The XML reader is
 * written here, small and strict: no DTD, no processing instruction but the declaration, only the five named entities
 * and character references, tags closed in order, one root.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { runLuauScenario } from '../../helpers/luau-scenario.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const read = (path: string): string => readFileSync(`${ROOT}/${path}`, 'utf8')
const run = promisify(execFile)
const MODULE_DIR = 'clients/roblox/PresenceLink'
/** The module's child ModuleScripts: every .lua file of its folder but init.lua. */
const childFiles = (): string[] => readdirSync(`${ROOT}/${MODULE_DIR}`).filter((f) => f.endsWith('.lua') && f !== 'init.lua').sort()

interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: XmlElement[]
  text: string
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/
// Characters XML 1.0 allows (tab, LF, CR and from U+0020, without the surrogates and U+FFFE/FFFF).
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/

/** Parses a whole XML document strictly; throws naming the offset of the first fault. */
function parseXml(input: string): XmlElement {
  let at = 0
  const fail = (message: string): never => {
    throw new Error(`XML at ${at}: ${message}`)
  }
  if (NOT_XML_CHAR.test(input)) fail('a character XML cannot contain')
  const skipMisc = (): void => {
    for (;;) {
      const ws = /^\s*/.exec(input.slice(at))![0]
      at += ws.length
      if (input.startsWith('<!--', at)) {
        const end = input.indexOf('-->', at + 4)
        if (end === -1) fail('unclosed comment')
        at = end + 3
      } else return
    }
  }
  const decode = (raw: string): string =>
    raw.replace(/&([^;&]*);|&/g, (whole, entity: string | undefined) => {
      const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }
      if (entity === undefined) return fail('a bare &')
      if (entity in named) return named[entity]!
      const ref = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(entity)
      if (ref === null) return fail(`unknown entity &${entity};`)
      return String.fromCodePoint(ref[1] !== undefined ? parseInt(ref[1], 16) : parseInt(ref[2]!, 10))
    })
  const element = (): XmlElement => {
    if (input[at] !== '<') fail('expected <')
    at += 1
    const name = NAME.exec(input.slice(at))?.[0] ?? fail('expected an element name')
    at += name.length
    const node: XmlElement = { name, attributes: {}, children: [], text: '' }
    for (;;) {
      const ws = /^\s*/.exec(input.slice(at))![0]
      at += ws.length
      if (input.startsWith('/>', at)) {
        at += 2
        return node
      }
      if (input[at] === '>') {
        at += 1
        break
      }
      if (ws === '') fail('expected whitespace before an attribute')
      const attribute = NAME.exec(input.slice(at))?.[0] ?? fail('expected an attribute name')
      at += attribute.length
      const value = /^\s*=\s*("([^"<]*)"|'([^'<]*)')/.exec(input.slice(at)) ?? fail(`attribute ${attribute} has no quoted value`)
      at += value[0].length
      if (attribute in node.attributes) fail(`attribute ${attribute} twice`)
      node.attributes[attribute] = decode(value[2] ?? value[3]!)
    }
    for (;;) {
      if (at >= input.length) fail(`<${name}> is not closed`)
      if (input.startsWith('</', at)) {
        at += 2
        const closing = NAME.exec(input.slice(at))?.[0]
        if (closing !== name) fail(`</${closing}> closes <${name}>`)
        at += name.length
        const end = /^\s*>/.exec(input.slice(at)) ?? fail('expected >')
        at += end[0].length
        return node
      }
      if (input.startsWith('<![CDATA[', at)) {
        const end = input.indexOf(']]>', at + 9)
        if (end === -1) fail('unclosed CDATA section')
        node.text += input.slice(at + 9, end)
        at = end + 3
      } else if (input.startsWith('<!--', at)) {
        const end = input.indexOf('-->', at + 4)
        if (end === -1) fail('unclosed comment')
        at = end + 3
      } else if (input.startsWith('<!', at) || input.startsWith('<?', at)) {
        fail('no declarations or processing instructions inside the document')
      } else if (input[at] === '<') {
        node.children.push(element())
      } else {
        const end = input.indexOf('<', at)
        const raw = input.slice(at, end === -1 ? input.length : end)
        if (raw.includes(']]>')) fail(']]> outside a CDATA section')
        node.text += decode(raw)
        at += raw.length
      }
    }
  }
  if (input.startsWith('<?xml')) {
    const end = input.indexOf('?>')
    if (end === -1) fail('unclosed declaration')
    at = end + 2
  }
  skipMisc()
  if (input.startsWith('<!', at) || input.startsWith('<?', at)) fail('no DTD or processing instruction')
  const root = element()
  skipMisc()
  if (at !== input.length) fail('content after the root element')
  return root
}

/** An instance of the model: class, name, properties (by name: type and text) and children. */
interface Instance {
  className: string
  name: string
  props: Record<string, { type: string; text: string; element: XmlElement }>
  children: Instance[]
}

const PROPERTY_SHAPES: Record<string, string[]> = { UDim2: ['XS', 'XO', 'YS', 'YO'], Color3: ['R', 'G', 'B'], Vector2: ['X', 'Y'] }

/** Reads a Roblox model document (format version 4) into instances; throws at the first deviation. */
function readModel(doc: XmlElement): Instance[] {
  if (doc.name !== 'roblox' || doc.attributes.version !== '4') throw new Error('the root is not <roblox version="4">')
  const referents = new Set<string>()
  const instance = (el: XmlElement): Instance => {
    const className = el.attributes.class
    const referent = el.attributes.referent
    if (className === undefined || referent === undefined) throw new Error('an Item without class or referent')
    if (referents.has(referent)) throw new Error(`referent ${referent} twice`)
    referents.add(referent)
    const [properties, ...items] = el.children
    if (properties?.name !== 'Properties') throw new Error(`${className}: Properties must come first`)
    if (items.some((c) => c.name !== 'Item')) throw new Error(`${className}: only Items may follow Properties`)
    const props: Instance['props'] = {}
    for (const p of properties.children) {
      const name = p.attributes.name
      if (name === undefined || name in props) throw new Error(`${className}: a property without a name, or twice: ${name}`)
      const shape = PROPERTY_SHAPES[p.name]
      if (shape !== undefined) {
        if (p.children.map((c) => c.name).join() !== shape.join()) throw new Error(`${className}.${name}: a ${p.name} is ${shape.join(', ')}`)
        for (const c of p.children) if (!Number.isFinite(Number(c.text)) || c.text.trim() === '') throw new Error(`${className}.${name}.${c.name} is no number`)
      } else if (p.children.length > 0) {
        throw new Error(`${className}.${name}: unexpected elements in a ${p.name}`)
      }
      if (p.name === 'bool' && !['true', 'false'].includes(p.text)) throw new Error(`${className}.${name} is no bool`)
      if (['int', 'token'].includes(p.name) && !/^-?\d+$/.test(p.text)) throw new Error(`${className}.${name} is no integer`)
      if (p.name === 'float' && !Number.isFinite(Number(p.text))) throw new Error(`${className}.${name} is no number`)
      props[name] = { type: p.name, text: p.text, element: p }
    }
    if (props.Name?.type !== 'string') throw new Error(`${className} has no string Name`)
    return { className, name: props.Name.text, props, children: items.map(instance) }
  }
  if (doc.children.some((c) => !['Item', 'Meta', 'External', 'SharedStrings'].includes(c.name))) throw new Error('unexpected element under <roblox>')
  return doc.children.filter((c) => c.name === 'Item').map(instance)
}

/** The instance at a path of names under `from`, checking each class. */
function at(from: Instance[], path: Array<[string, string]>): Instance {
  let list = from
  let found: Instance | undefined
  for (const [name, className] of path) {
    found = list.find((i) => i.name === name)
    if (found === undefined) throw new Error(`no ${name} (${className})`)
    if (found.className !== className) throw new Error(`${name} is a ${found.className}, not a ${className}`)
    list = found.children
  }
  return found!
}

t.test('the XML reader is strict', async (t) => {
  t.same(parseXml('<a x="1 &amp; 2"><b>&lt;&#65;&#x42;</b><![CDATA[<raw> & ]]><c/></a>'), {
    name: 'a',
    attributes: { x: '1 & 2' },
    children: [
      { name: 'b', attributes: {}, children: [], text: '<AB' },
      { name: 'c', attributes: {}, children: [], text: '' },
    ],
    text: '<raw> & ',
  })
  for (const bad of ['<a><b></a></b>', '<a>&nbsp;</a>', '<a>x & y</a>', '<a><![CDATA[x</a>', '<a/><b/>', '<a x="1" x="2"/>', '<!DOCTYPE a><a/>', '<a>]]></a>', '<a', '<a>\u0001</a>', '<a><?pi?></a>']) {
    t.throws(() => parseXml(bad), { message: /^XML at \d+: / }, `refused: ${JSON.stringify(bad)}`)
  }
})

t.test('the committed kit', async (t) => {
  const model = readModel(parseXml(read('clients/roblox/PresenceLink.rbxmx')))
  t.equal(model.length, 1, 'one root instance')
  const kit = [['PresenceLinkKit', 'Folder']] as Array<[string, string]>
  const server: Array<[string, string]> = [...kit, ['ServerScriptService', 'Folder']]
  const gui: Array<[string, string]> = [...kit, ['StarterGui', 'Folder'], ['PresenceLinkGui', 'ScreenGui']]

  const module = at(model, [...server, ['PresenceLink', 'ModuleScript']])
  t.equal(module.props.Source?.type, 'ProtectedString')
  t.ok(module.props.Source?.text === read(`${MODULE_DIR}/init.lua`), "the ModuleScript's Source is clients/roblox/PresenceLink/init.lua, byte for byte")
  const children = childFiles()
  t.ok(children.length >= 8, 'split by concern')
  t.same(module.children.map((c) => [c.className, c.name]), children.map((f) => ['ModuleScript', f.slice(0, -4)]), 'one child ModuleScript per other file, by name')
  for (const f of children) {
    t.ok(module.children.find((c) => c.name === f.slice(0, -4))?.props.Source?.text === read(`${MODULE_DIR}/${f}`), `${f}: its ModuleScript's Source, byte for byte`)
  }
  const script = at(model, [...server, ['PresenceLinkServer', 'Script']])
  t.ok(script.props.Source?.text === read('clients/roblox/kit/PresenceLinkServer.server.lua'), "the Script's Source is its file")
  const local = at(model, [...gui, ['LinkCodeClient', 'LocalScript']])
  const clientSource = read('clients/roblox/kit/LinkCodeClient.client.lua')
  t.ok(local.props.Source?.text === clientSource, "the LocalScript's Source is its file")

  const screen = at(model, gui)
  t.equal(screen.props.ResetOnSpawn?.text, 'false', 'the panel survives a respawn')
  const panel = at(model, [...gui, ['Panel', 'Frame']])
  t.equal(at(model, [...gui, ['Panel', 'Frame'], ['CodeBox', 'TextBox']]).props.ClearTextOnFocus?.text, 'false')
  at(model, [...gui, ['Panel', 'Frame'], ['LinkButton', 'TextButton']])
  for (const name of ['Title', 'Status', 'Activity']) at(model, [...gui, ['Panel', 'Frame'], [name, 'TextLabel']])
  const waitedFor = [...clientSource.matchAll(/panel:WaitForChild\("([^"]+)"\)/g)].map((m) => m[1])
  t.same(waitedFor.filter((name) => !panel.children.some((c) => c.name === name)), [], 'every child the LocalScript waits for is in the panel')
  t.match(read('clients/roblox/kit/PresenceLinkServer.server.lua'), /linkCode\.Name = "LinkCode"[\s\S]*linkCode\.Parent = ReplicatedStorage/, 'the Script creates its RemoteEvent')
  t.match(clientSource, /ReplicatedStorage:WaitForChild\("LinkCode"\)/, 'which the LocalScript uses')
})

t.test('the committed kit and single script are what npm run build:roblox writes now', async (t) => {
  const { stdout } = await run('node', ['scripts/build-roblox-kit.mjs', '--check'], { cwd: ROOT })
  t.match(stdout, /PresenceLink\.rbxmx is up to date/)
  t.match(stdout, /PresenceLink\.single\.lua is up to date/)
  const single = read('clients/roblox/PresenceLink.single.lua')
  for (const f of ['init.lua', ...childFiles()]) t.ok(single.includes(read(`${MODULE_DIR}/${f}`).trimEnd()), `the single script holds ${f} unchanged`)
  t.match(JSON.parse(read('package.json')).scripts['build:roblox'], /^node scripts\/build-roblox-kit\.mjs$/)
})

t.test('npm run build:roblox reports bytes as written, not characters', async (t) => {
  const { wroteLine } = (await import(pathToFileURL(join(ROOT, 'scripts/build-roblox-kit.mjs')).href)) as { wroteLine: (name: string, text: string) => string }
  t.equal(wroteLine('x.lua', 'a\u00e9\u2014\u{1F600}'), 'wrote x.lua (10 bytes)', '1 + 2 + 3 + 4 bytes in UTF-8, 5 UTF-16 units')
  for (const file of ['clients/roblox/PresenceLink.rbxmx', 'clients/roblox/PresenceLink.single.lua']) {
    t.equal(wroteLine(file, read(file)), `wrote ${file} (${statSync(join(ROOT, file)).size} bytes)`, `${file}: the size on disk`)
  }
})

t.test('one placement everywhere: a ModuleScript PresenceLink directly in ServerScriptService', async (t) => {
  const requireLine = 'require(ServerScriptService:WaitForChild("PresenceLink"))'
  const files = [`${MODULE_DIR}/init.lua`, 'clients/roblox/PresenceLink.single.lua', 'clients/roblox/README.md', 'docs/roblox.md', 'clients/roblox/kit/PresenceLinkServer.server.lua']
  for (const file of files) {
    const text = read(file)
    t.ok(text.includes(requireLine), `${file} requires it from ServerScriptService`)
    t.notMatch(text, /script\.Parent\.PresenceLink|ServerStorage/, `${file} names no other place`)
  }
  // Inside the module, only its own children: script.X from init.lua, script.Parent.X from a child.
  for (const f of ['init.lua', ...childFiles()]) {
    const text = read(`${MODULE_DIR}/${f}`)
    const targets = [...text.matchAll(/require\(([^)]*)\)/g)].map((m) => m[1]!).filter((x) => !x.startsWith('ServerScriptService:WaitForChild("PresenceLink"'))
    const own = f === 'init.lua' ? /^script\.[A-Z][A-Za-z]+$/ : /^script\.Parent\.[A-Z][A-Za-z]+$/
    t.same(targets.filter((x) => !own.test(x) || !childFiles().includes(`${x.split('.').at(-1)}.lua`)), [], `${f} requires only the module's own children`)
  }
})

t.test('no file of the module is over 500 lines', async (t) => {
  for (const f of ['init.lua', ...childFiles()]) {
    const lines = read(`${MODULE_DIR}/${f}`).split('\n').length - 1
    t.ok(lines <= 500, `${f}: ${lines} lines`)
  }
})

t.test('the module, the single script and the kit compile under Luau', async (t) => {
  const files = [...['init.lua', ...childFiles()].map((f) => `${MODULE_DIR}/${f}`), 'clients/roblox/PresenceLink.single.lua', 'clients/roblox/kit/PresenceLinkServer.server.lua', 'clients/roblox/kit/LinkCodeClient.client.lua']
  const out = await runLuauScenario('compile.lua', { FILES: files.join(',') })
  t.same(out, files.map((file) => ({ file, ok: true })), 'each compiles (luau-web)')
})
