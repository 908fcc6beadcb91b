/**
 * .env.example names every variable docker-compose.yml and docker-compose.replicated.yml read (`${VAR...}`) exactly once, each with a line of
 * explanation above it, a safe value (the secrets empty, so compose refuses to start until they are set; everything
 * else the compose default or empty), and nothing compose does not read.
 */
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { skipUnlessTool, which } from '../helpers/ops-tools.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** How docker-compose.yml uses a variable: its default (`:-`) or that it is required (`:?`). */
interface ComposeUse {
  required: boolean
  defaults: Set<string>
}

function composeVariables(text: string): Map<string, ComposeUse> {
  const out = new Map<string, ComposeUse>()
  const withoutComments = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
  for (const m of withoutComments.matchAll(/\$\{([A-Z_][A-Z0-9_]*)(?:(:?[-?])([^}]*))?\}/g)) {
    const use = out.get(m[1]!) ?? { required: false, defaults: new Set<string>() }
    if (m[2]?.endsWith('?')) use.required = true
    else use.defaults.add(m[2]?.endsWith('-') ? m[3]! : '')
    out.set(m[1]!, use)
  }
  return out
}

interface ExampleLine {
  name: string
  value: string
  explanation: string
}

function exampleVariables(text: string): ExampleLine[] {
  const lines = text.split('\n')
  const out: ExampleLine[] = []
  lines.forEach((line, i) => {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line)
    if (m === null) return
    const above = lines[i - 1] ?? ''
    out.push({ name: m[1]!, value: m[2]!, explanation: above.startsWith('# ') ? above.slice(2) : '' })
  })
  return out
}

t.test('.env.example', async (t) => {
  // docker-compose.replicated.yml is read with docker-compose.yml (-f both), from the same .env.
  const composeFiles = await Promise.all(['docker-compose.yml', 'docker-compose.replicated.yml'].map((f) => readFile(join(ROOT, f), 'utf8')))
  const compose = composeVariables(composeFiles.join('\n'))
  const exampleText = await readFile(join(ROOT, '.env.example'), 'utf8')
  const example = exampleVariables(exampleText)

  t.test('names exactly the variables docker-compose.yml reads, once each', async (t) => {
    const names = example.map((e) => e.name)
    t.equal(new Set(names).size, names.length, 'no variable twice')
    t.same([...names].sort(), [...compose.keys()].sort())
    t.ok(compose.size >= 35, `compose reads ${compose.size} variables`)
  })

  t.test('explains each variable on the line above it', async (t) => {
    for (const e of example) t.ok(e.explanation.length >= 15, `${e.name}: ${e.explanation}`)
  })

  t.test('holds only safe values: secrets empty, the rest the compose default or empty', async (t) => {
    for (const e of example) {
      const use = compose.get(e.name)
      if (use === undefined) continue
      if (use.required) t.equal(e.value, '', `${e.name} is a required secret: empty, so compose refuses to start until it is set`)
      else t.ok(e.value === '' || use.defaults.has(e.value), `${e.name}=${e.value} is empty or compose's default (${[...use.defaults].join(', ')})`)
    }
    t.notMatch(exampleText, /^[A-Z_]*(PASSWORD|TOKEN|SECRET|API_KEY)[A-Z_]*=\S/m, 'no secret has a value')
  })

  t.test('is what the README and operations.md tell a new operator to copy', async (t) => {
    t.match(await readFile(join(ROOT, 'README.md'), 'utf8'), /cp \.env\.example \.env/)
    t.match(await readFile(join(ROOT, 'docs/operations.md'), 'utf8'), /cp \.env\.example \.env/)
    t.match(await readFile(join(ROOT, '.gitignore'), 'utf8'), /^\.env$/m, 'the filled-in .env is never committed')
  })

  t.test('docker-compose refuses it as is, and accepts it once the secrets are filled in', { skip: await skipUnlessTool('docker-compose', 'docker-compose') }, async (t) => {
    const composeBin = (await which('docker-compose')) ?? 'docker-compose'
    const dir = await mkdtemp(join(tmpdir(), 'pl-env-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await cp(join(ROOT, 'docker-compose.yml'), join(dir, 'docker-compose.yml'))
    // Our environment would override the file: leave every variable compose reads out of it.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !compose.has(k) && v !== undefined)) as Record<string, string>
    await writeFile(join(dir, '.env'), exampleText)
    const asIs = await runClean(composeBin, ['config', '-q'], dir, env)
    t.not(asIs.code, 0, 'the example as is: compose refuses to start')
    t.match(asIs.stderr, /MYSQL_PASSWORD|MYSQL_ROOT_PASSWORD|GRAFANA_ADMIN_PASSWORD|DISCORD_TOKEN/)
    const filled = exampleText.replace(/^(MYSQL_PASSWORD|MYSQL_ROOT_PASSWORD|GRAFANA_ADMIN_PASSWORD|DISCORD_TOKEN)=$/gm, '$1=0123456789abcdef')
    await writeFile(join(dir, '.env'), filled)
    const ok = await runClean(composeBin, ['config'], dir, env)
    t.equal(ok.code, 0, ok.stderr)
    t.match(ok.stdout, /MYSQLD_EXPORTER_PASSWORD: 0123456789abcdef/, 'the .env values reach the services')
    t.match(ok.stdout, /FRONT_WORKERS: '2'/, 'and the defaults')
  })
})

/** Runs a command with exactly `env` (not ours on top), so the compose variables come from the .env file alone. */
function runClean(file: string, args: readonly string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 127, stdout, stderr })
    })
  })
}
