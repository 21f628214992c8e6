import { ESLint } from 'eslint'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// The walls of docs/architecture.md: each broken on purpose must fail the
// lint, no import cycle anywhere, and the page names every room.

const ROOT = path.resolve(import.meta.dirname, '../..')
const eslint = new ESLint({ cwd: ROOT })

/** The rule ids the project's lint reports for `code` as if it were the file at `file`. */
async function lintAs(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) })
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`)
}

describe('the lint enforces the three walls', () => {
  it.each([
    ['server/http/dashboard/pages/new-page.ts', "import { parseDuration } from '../../../../src/cli/flags.js'", 'The simulator does not import the CLI'],
    ['server/services/new-service.ts', "import { renderBoard } from '../../src/ui/board.js'", 'The simulator does not import the CLI'],
    ['server/store/new-index.ts', "import { createSession } from '../services/checkout-sessions.js'", 'The store knows documents'],
    ['server/store/new-index.ts', "import type { ClockService } from '../clock/clock-service.js'", 'The store knows documents'],
    ['server/http/routes/new-route.ts', "import { StoreWriteError } from '../../store/types.js'", 'HTTP reaches data through services'],
    ['src/conformance/cases/new-cases.ts', "import { startServer } from '../../../server/start.js'", 'talks to its target over HTTP only'],
    ['src/conformance/new-report.ts', "import { formatTable } from '../cli/output.js'", 'The conformance suite does not import the CLI'],
  ])('%s: %s fails', async (file, importLine, message) => {
    const messages = await lintAs(file, `${importLine}\nexport const used = [${importLine.match(/\{ (?:type )?(\w+) \}/)![1]}]\n`)
    expect(messages.join('\n')).toContain(`no-restricted-imports: '`)
    expect(messages.join('\n')).toContain(message)
  })

  it.each([
    ['server/http/routes/new-route.ts', "import { createSession } from '../../services/checkout-sessions.js'"],
    ['server/store/new-index.ts', "import { invoiceNumberKey } from '../domain/invoice.js'"],
    ['server/services/new-service.ts', "import { parseFjdAmount } from '../../src/money.js'"],
  ])('%s: %s passes', async (file, importLine) => {
    expect(await lintAs(file, `${importLine}\nexport const used = [${importLine.match(/\{ (\w+) \}/)![1]}]\n`)).toEqual([])
  })
})

describe('the lint keeps zod out of a CLI command\'s start', () => {
  it.each([
    ['commands/sessions/new-command.ts', "import { providerSchema } from '../../src/schemas/index.js'"],
    ['commands/invoices/new-command.ts', "import { isoDateSchema } from '../../src/schemas/invoices.js'"],
    ['src/cli/new-inputs.ts', "import { z } from 'zod'"],
  ])('%s: %s fails', async (file, importLine) => {
    const messages = await lintAs(file, `${importLine}\nexport const used = [${importLine.match(/\{ (\w+) \}/)![1]}]\n`)
    expect(messages.join('\n')).toMatch(/@typescript-eslint\/no-restricted-imports: .*(the schemas load zod|Take types only)/)
  })

  it.each([
    ['commands/sessions/new-command.ts', "import { PROVIDERS } from '../../src/schemas/enums.js'\nexport const used = [PROVIDERS]"],
    ['commands/sessions/new-command.ts', "import type { CheckoutSession } from '../../src/schemas/index.js'\nexport type Used = CheckoutSession"],
    ['src/cli/new-inputs.ts', "import type { z } from 'zod'\nexport type Used = z.ZodType"],
  ])('%s: %s passes', async (file, code) => {
    expect(await lintAs(file, `${code}\n`)).toEqual([])
  })

  it('and no command reaches zod through a helper, but the three that check what they read', () => {
    // The lint sees a file's own imports; this follows them. `bula logs tail`
    // once took EVENT_TYPES from the schemas through src/listen/report.ts:
    // 0.39 instead of 0.24 s of CPU a start.
    const commands = readdirSync(path.join(ROOT, 'commands'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))
    const loadingZod = commands.filter((name) => loadsZod(path.join(ROOT, 'commands', name), new Set())).sort()
    expect(loadingZod).toEqual([
      'events/export.ts', // checks each event's object before writing it into a fixture
      'fixtures/run.ts', // checks the fixture files it is given
      'trigger.ts', // checks the fixture it runs
    ])
  })

  it('nor through reading the config file, which every command does once `bula serve` or `bula login` saved a profile', () => {
    // loadConfig() once checked the file with zod, imported when it ran: 70–90 ms of CPU on every such command.
    expect(loadsZod(path.join(ROOT, 'src', 'config', 'profiles.ts'), new Set(), { whenRun: true })).toBe(false)
  })
})

/**
 * What `file` imports: each project file as its absolute .ts path, each
 * package by its name. `loaded` leaves out `import type` and `export type`,
 * which load nothing.
 */
function importsOf(file: string, { loaded = false, whenRun = false } = {}): string[] {
  const line = loaded ? /^(?:import|export)(?!\s+type\b)[^'"]*?from\s+'([^']+)'/gm : /^(?:import|export)[^'"]*?from\s+'([^']+)'/gm
  const text = readFileSync(file, 'utf8')
  // `whenRun`: what a function loads when it runs, `import('./x.js')`, as well.
  return [...text.matchAll(line), ...(whenRun ? text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g) : [])]
    .map(([, specifier]) => (specifier!.startsWith('.') ? path.resolve(path.dirname(file), specifier!).replace(/\.js$/, '.ts') : specifier!))
    .filter((target) => !path.isAbsolute(target) || existsSync(target))
}

/** Whether loading `file` loads zod, through the project's files it loads (`whenRun`: and those its functions load). */
function loadsZod(file: string, seen: Set<string>, { whenRun = false } = {}): boolean {
  if (seen.has(file)) return false
  seen.add(file)
  return importsOf(file, { loaded: true, whenRun }).some(
    (target) => target === 'zod' || target.startsWith('zod/') || (path.isAbsolute(target) && loadsZod(target, seen, { whenRun })),
  )
}

/** Each .ts file of server/, src/ and commands/ with the project files it imports (type imports too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) visit(file)
      else if (file.endsWith('.ts')) graph.set(path.relative(ROOT, file), importsOf(file).filter((target) => path.isAbsolute(target)).map((target) => path.relative(ROOT, target)))
    }
  }
  for (const dir of ['server', 'src', 'commands']) visit(path.join(ROOT, dir))
  return graph
}

/** Every cycle found by a depth-first walk, as the files on it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const walk = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)))
      else if (!state.has(next)) walk(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) walk(file)
  return found
}

describe('the lint keeps time and chance in one place each', () => {
  it.each([
    ["import { randomBytes } from 'node:crypto'\nexport const token = randomBytes(32)", 'server/ids.ts'],
    ['export const token = crypto.randomUUID()', 'server/ids.ts'],
    ['export const pick = Math.random()', 'server/ids.ts'],
    ['export const now = new Date()', 'the injected clock'],
    ['export const now = Date.now()', 'the injected clock'],
  ])('%s fails in server/services', async (code, message) => {
    expect((await lintAs('server/services/new-service.ts', `${code}\n`)).join('\n')).toContain(message)
  })

  it('lets server/ids.ts draw random bytes, and any file read a given time', async () => {
    expect(await lintAs('server/ids.ts', "import { randomFillSync } from 'node:crypto'\nexport const fill = randomFillSync\n")).toEqual([])
    expect(await lintAs('server/services/new-service.ts', 'export const at = (ms: number) => new Date(ms).toISOString()\n')).toEqual([])
  })
})

/** Tracked text files, as a clone has them. */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file && existsSync(path.join(ROOT, file)) && !/\.(png|pdf|ttf|ico|tgz)$/.test(file) && file !== 'package-lock.json')
}

describe('the house rules of the repository', () => {
  it('cites no document it does not ship', () => {
    // Built so that this file does not match itself.
    const outside = new RegExp(['contract', ' §|contract\\.md'].join(''))
    expect(trackedFiles().filter((file) => outside.test(readFileSync(path.join(ROOT, file), 'utf8')))).toEqual([])
  })

  it('keeps each route file under 250 lines, parsing nothing by hand', () => {
    const routes = readdirSync(path.join(ROOT, 'server/http/routes'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))
    for (const name of routes) {
      const text = readFileSync(path.join(ROOT, 'server/http/routes', name), 'utf8')
      expect(text.split('\n').length, name).toBeLessThanOrEqual(250)
      expect(text, name).not.toContain('parseWith(')
    }
  })

  it('starts the HTTP suites\' simulators through useTestServer()', () => {
    const byHand = readdirSync(path.join(ROOT, 'test/http')).filter((name) => readFileSync(path.join(ROOT, 'test/http', name), 'utf8').includes('startTestServer('))
    expect(byHand).toEqual([])
  })
})

describe('the import graph', () => {
  it('has no cycle', () => {
    const graph = importGraph()
    expect(graph.size).toBeGreaterThan(150)
    expect(cycles(graph)).toEqual([])
  })

  it('would show a cycle: the check is not a rubber stamp', () => {
    const graph = importGraph()
    graph.set('server/store/collections.ts', [...graph.get('server/store/collections.ts')!, 'server/services/idempotency.ts'])
    expect(cycles(graph).length).toBeGreaterThan(0)
  })
})

describe('docs/architecture.md', () => {
  it('names every folder and module of server/ and src/', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8')
    const rooms = ['server', 'src'].flatMap((dir) =>
      readdirSync(path.join(ROOT, dir)).map((name) => `${dir}/${name}`.replace(/\.ts$/, '')),
    )
    expect(rooms.filter((room) => !page.includes(room))).toEqual([])
  })
})
