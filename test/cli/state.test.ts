import { execa } from 'execa'
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BulaClient } from '../../src/client/bula-client.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'
import { BIN, startServe } from '../helpers/serve-process.js'
import { expectMode } from '../helpers/platform.js'

const server = useServe()

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-state-cli-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const api = (merchant: TestMerchant) => new BulaClient({ baseUrl: merchant.env.BULA_BASE_URL, apiKey: merchant.secret })

/**
 * A merchant with one of everything: an endpoint, paid, failed, cancelled and pending sessions, a paid Invoice, a
 * Payout. A new one of the file's simulator unless `merchant` is given.
 */
async function busyMerchant(merchant?: TestMerchant): Promise<TestMerchant> {
  merchant ??= await signupMerchant(server().baseUrl)
  const client = api(merchant)
  await client.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks' })
  await client.updateSettings({ payoutSchedule: 'manual', displayName: 'Busy Bula' })
  for (const outcome of ['succeeded', 'failed'] as const) {
    const session = await client.createCheckoutSession({ amount: 1500, currency: 'FJD', metadata: { outcome } }, `pay-${outcome}`)
    await client.payCheckoutSession(session.id, { outcome, provider: 'mpaisa' })
  }
  await client.cancelCheckoutSession((await client.createCheckoutSession({ amount: 200, currency: 'FJD' }, 'cancelled')).id)
  await client.createCheckoutSession({ amount: 300, currency: 'FJD' }, 'pending')
  const invoice = await client.createInvoice({ customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 3, unitPrice: 2500 }] }, 'invoice')
  await client.sendInvoice(invoice.id, 'send')
  await client.payInvoice(invoice.id, { outcome: 'succeeded' })
  await client.requestPayout()
  await client.createCheckoutSession({ amount: 400, currency: 'FJD' }, 'after-payout')
  return merchant
}

/** Everything the merchant can read through the API and the stand-in. */
async function apiView(merchant: TestMerchant) {
  const client = api(merchant)
  const events = await client.listEventsAfter(undefined)
  return {
    me: await client.getMe(),
    settings: await client.getSettings(),
    sessions: await client.listAllCheckoutSessions({ limit: 100 }),
    invoices: await client.listAllInvoices({ limit: 100 }),
    payouts: await client.listAllPayouts({ limit: 100 }),
    endpoints: await client.listWebhookEndpoints(),
    events,
    deliveries: await Promise.all(events.map((event) => client.getEvent(event.event_id))),
    emails: await client.request({ method: 'GET', path: '/_sim/emails' }),
  }
}

describe('bula state', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0

  it('round-trips the merchant through export, reset and import: the API shows the same before and after', async () => {
    const merchant = await busyMerchant()
    const before = await apiView(merchant)
    expect(before.sessions.data).toHaveLength(6)
    expect(before.payouts.data).toHaveLength(1)

    const file = path.join(dir, 'busy.json')
    const exported = await runCli(['state', 'export', file, '--json'], { env: merchant.env })
    expect(exported.exitCode, exported.stdout + exported.stderr).toBe(0)
    const { objects } = parseJsonOutput<{ file: string; merchantId: string; objects: number }>(exported)
    const text = await readFile(file, 'utf8')
    const state = JSON.parse(text) as { format: string; merchantId: string; collections: Record<string, unknown[]> }
    expect(state).toMatchObject({ format: 'bula-state', version: 1, merchantId: merchant.merchantId })
    // The merchant's settings and clock travel beside the objects and are not counted among them, as the import counts.
    const { merchants, ...objectLists } = state.collections
    expect(merchants).toHaveLength(1)
    expect(objects).toBe(Object.values(objectLists).flat().length)
    // Pretty, readable JSON, without a key in plain text.
    expect(text).toBe(`${JSON.stringify(state, null, 2)}\n`)
    expect(text).not.toContain(merchant.secret)
    expect(text).not.toMatch(/sk_(test|live)_[A-Za-z0-9]{32}/)

    const reset = await runCli(['state', 'reset', '--merchant', '--yes'], { env: merchant.env })
    expect(reset.exitCode, reset.stderr).toBe(0)
    expect(reset.stdout).toContain(`Reset merchant ${merchant.merchantId}: it has no test objects left.`)
    const empty = await apiView(merchant)
    expect(empty.sessions.data).toEqual([])
    expect(empty.invoices.data).toEqual([])
    expect(empty.events).toEqual([])
    expect(empty.me.balance).toBe(0)
    // The key doing it, and the settings, stay.
    expect(empty.settings.displayName).toBe('Busy Bula')

    const imported = await runCli(['state', 'import', file, '--json'], { env: merchant.env })
    expect(imported.exitCode, imported.stdout + imported.stderr).toBe(0)
    // The same count both ways: what was exported is what was imported.
    expect(parseJsonOutput(imported)).toMatchObject({ merchantId: merchant.merchantId, imported: objects })
    expect(await apiView(merchant)).toEqual(before)
  })

  it('keeps an existing file unless --force', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = path.join(dir, 'kept.json')
    await writeFile(file, 'mine')
    const kept = await runCli(['state', 'export', file], { env: merchant.env })
    expect(kept.exitCode).toBe(1)
    expect(kept.stderr).toContain(`file_exists: ${file} exists: add --force to overwrite it. (param: file)`)
    expect(await readFile(file, 'utf8')).toBe('mine')
    const forced = await runCli(['state', 'export', file, '--force'], { env: merchant.env })
    expect(forced.exitCode, forced.stderr).toBe(0)
    // A new merchant's state is the merchant alone: one object, in the singular.
    expect(forced.stdout).toMatch(new RegExp(`^Wrote 0 objects of merchant ${merchant.merchantId} to .+kept\\.json\\.$`))
    // It holds the endpoints' signing secrets: readable by its owner only, also when it replaced a file.
    await expectMode(file, 0o600)
  })

  it('prints the state on standard output for FILE -, refusing --json, which would print there too', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = path.join(dir, 'beside-stdout.json')
    expect((await runCli(['state', 'export', file], { env: merchant.env })).exitCode).toBe(0)
    const printed = await runCli(['state', 'export', '-'], { env: merchant.env })
    expect(printed.exitCode, printed.stderr).toBe(0)
    // execa drops the final newline the file has.
    expect(`${printed.stdout}\n`).toBe(await readFile(file, 'utf8'))
    expect(printed.stderr).toBe(`Wrote 0 objects of merchant ${merchant.merchantId} to standard output.`)
    const json = await runCli(['state', 'export', '-', '--json'], { env: merchant.env })
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'invalid_usage', message: expect.stringContaining('--json cannot also be provided when FILE is -') } })
  })

  it('copies a merchant to another simulator in one line: export - | import -', async () => {
    // The same merchant (id and key) in two simulators: both start from a file that holds it, and nothing else of it.
    const origin = path.join(dir, 'origin.json')
    const first = await startServe({ memory: true, args: ['--export-on-exit', origin] })
    const merchant = await signupMerchant(first.baseUrl)
    expect(await first.stop()).toBe(0)
    const both = { memory: true, args: ['--import', origin] }
    const [source, target] = await Promise.all([startServe(both), startServe(both)])
    try {
      const at = (baseUrl: string): TestMerchant => ({ ...merchant, env: { BULA_BASE_URL: baseUrl, BULA_API_KEY: merchant.secret } })
      const before = await apiView(await busyMerchant(at(source.baseUrl)))
      expect((await apiView(at(target.baseUrl))).sessions.data).toEqual([])

      // The key comes from the environment on both sides, the address from it on the left and from --base-url on the right.
      const copied = await execa('sh', ['-c', `node "${BIN}" state export - | node "${BIN}" state import - --base-url ${target.baseUrl} --json`], {
        env: { ...at(source.baseUrl).env, BULA_CONFIG_DIR: cliConfigDir() },
        reject: false,
      })
      expect(copied.exitCode, copied.stderr).toBe(0)
      const { imported } = parseJsonOutput<{ imported: number }>(copied)
      expect(parseJsonOutput(copied)).toEqual({ merchantId: merchant.merchantId, mode: 'test', imported })
      // The left side's report, on stderr: standard output went into the pipe.
      expect(copied.stderr).toMatch(new RegExp(`^Wrote \\d+ objects of merchant ${merchant.merchantId} to standard output\\.$`))
      // URLs name a simulator: those the API derives (hosted pages, PDFs) the one answering, those stored (events'
      // payloads, an Invoice's session's return URLs) the one where they were made. The rest is the same.
      const withoutAddresses = (view: unknown): unknown =>
        JSON.parse(JSON.stringify(view).replaceAll(source.baseUrl, '{simulator}').replaceAll(target.baseUrl, '{simulator}'))
      expect(withoutAddresses(await apiView(at(target.baseUrl)))).toEqual(withoutAddresses(before))

      // Without --json, the report names where the state came from.
      const named = await execa('sh', ['-c', `node "${BIN}" state export - | node "${BIN}" state import -`], {
        env: { ...at(target.baseUrl).env, BULA_CONFIG_DIR: cliConfigDir() },
        reject: false,
      })
      expect(named.exitCode, named.stderr).toBe(0)
      expect(named.stdout).toBe(`Imported ${imported} objects into merchant ${merchant.merchantId} from standard input.`)
    } finally {
      await Promise.all([source.stop(), target.stop()])
    }
  })

  it('reads standard input for FILE - up to the same limit as a file, naming it, and refuses an empty one or a folder', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const importStdin = (input: { stdin: Iterable<Uint8Array> } | { input: string }) =>
      execa('node', [BIN, 'state', 'import', '-', '--json'], { env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), npm_command: undefined }, ...input, reject: false, timeout: 60_000 })

    // Endless input, as from a program that never stops writing: read only up to the limit, then refused.
    const spaces = new Uint8Array(1024 * 1024).fill(0x20)
    const endless = await importStdin({
      stdin: (function* () {
        for (;;) yield spaces
      })(),
    })
    expect(endless.exitCode).toBe(1)
    expect(parseJsonOutput(endless)).toEqual({
      error: {
        code: 'invalid_file',
        param: 'file',
        message: 'standard input is larger than 16 MiB: the simulator imports a merchant\'s state of up to that size (about 28,000 Checkout Sessions).',
      },
    })

    // Nothing piped in, or the command before the | failed and printed nothing.
    const empty = await importStdin({ input: '' })
    expect(empty.exitCode).toBe(2)
    expect(parseJsonOutput(empty)).toEqual({
      error: { code: 'invalid_usage', message: 'Standard input is empty (nothing was piped into it, or the command before | failed): pipe a state file into it, or give a file name instead of -.' },
    })

    // A folder redirected in (`< folder`) is not an empty input: Node hands it over as a stream that ends at once.
    const folder = await execa('sh', ['-c', `node "${BIN}" state import - --json < "${dir}"`], {
      env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir() },
      reject: false,
    })
    expect(folder.exitCode).toBe(1)
    expect(parseJsonOutput(folder)).toEqual({
      error: { code: 'file_unreadable', param: 'file', message: 'Cannot read standard input: it is a folder (EISDIR); pipe a state file into it, or give a file name instead of -.' },
    })

    const junk = await importStdin({ input: '{"hello": ' })
    expect(parseJsonOutput(junk)).toMatchObject({ error: { code: 'invalid_file', param: 'file', message: expect.stringMatching(/^standard input is not JSON: /) } })
    // `--import` takes a file only, so the pointer says to save one first.
    const whole = await importStdin({ input: JSON.stringify({ format: 'bula-state', version: 1, collections: { merchants: [] } }) })
    expect(parseJsonOutput(whole)).toMatchObject({
      error: {
        code: 'invalid_file',
        message: 'standard input holds a whole simulator, not one merchant: save it to a file and start a simulator from that with `bula serve --import FILE` or `bula exec --import FILE`.',
      },
    })
  })

  it.skipIf(!hasScript)('refuses FILE - at once when standard input is a terminal, instead of waiting for typing', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // script(1) gives the command a terminal; its own input stays open, so a command reading the terminal would wait until the timeout.
    const onTerminal = await execa('script', ['-qec', `node ${BIN} state import -`, '/dev/null'], {
      env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' },
      stdin: 'pipe',
      reject: false,
      timeout: 20_000,
    })
    expect(onTerminal.timedOut).toBe(false)
    expect(onTerminal.exitCode).toBe(2)
    expect(onTerminal.stdout.replace(/\s*›\s*/g, ' ')).toContain('Standard input is a terminal: pipe a state file into it, or give a file name instead of -.')
  })

  it('names a folder given as the file, or a missing folder, instead of asking for --force', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // A folder: 'add --force' would only lead to EISDIR.
    for (const args of [[dir], [dir, '--force']]) {
      const folder = await runCli(['state', 'export', ...args], { env: merchant.env })
      expect(folder.exitCode).toBe(1)
      expect(folder.stderr).toContain(`file_unwritable: Cannot write ${dir}: it is a folder. Give a file name. (param: file)`)
    }
    const missing = path.join(dir, 'no such folder', 'state.json')
    const inMissing = await runCli(['state', 'export', missing, '--json'], { env: merchant.env })
    expect(inMissing.exitCode).toBe(1)
    expect(parseJsonOutput(inMissing)).toEqual({
      error: { code: 'file_unwritable', message: `Cannot write ${missing}: the folder ${path.dirname(missing)} does not exist. Create it first.`, param: 'file' },
    })
  })

  it('bula serve --import refuses a whole file holding what the API never leaves, exits 2 naming the file and the value, and keeps its data file', async () => {
    const origin = path.join(dir, 'forged-origin.json')
    const first = await startServe({ memory: true, args: ['--export-on-exit', origin] })
    const merchant = await signupMerchant(first.baseUrl)
    const session = await merchant.api.createSession()
    expect(await first.stop()).toBe(0)
    const state = JSON.parse(await readFile(origin, 'utf8')) as { collections: { checkoutSessions: { id: string; customerEmail: string | null }[] } }
    const at = state.collections.checkoutSessions.findIndex((s) => s.id === session.id)
    state.collections.checkoutSessions[at]!.customerEmail = 'someone@example.test'
    await writeFile(origin, JSON.stringify(state))
    const dataFile = path.join(dir, 'kept.json')
    await writeFile(dataFile, '')
    const refused = await execa('node', [BIN, 'serve', '--port', '0', '--data', dataFile, '--import', origin, '--no-save-profile'], { reject: false, timeout: 30_000, stdin: 'ignore' })
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr.replace(/\s*›\s*/g, ' ')).toContain(`${origin}: checkoutSessions[${at}].customerEmail must be null: test mode validates a customer's e-mail and drops it.`)
    expect(await readFile(dataFile, 'utf8')).toBe('')
  })

  it('refuses a file that is not this merchant\'s state, naming what is wrong', async () => {
    const owner = await busyMerchant()
    const other = await signupMerchant(server().baseUrl)
    const file = path.join(dir, 'owner.json')
    // Set-up over HTTP (bula state export has tests of its own above): the file it would write.
    await writeFile(file, `${JSON.stringify(await succeed(owner.api.get('/_sim/state')), null, 2)}\n`)
    const foreign = await runCli(['state', 'import', file], { env: other.env })
    expect(foreign.exitCode).toBe(1)
    expect(foreign.stderr).toMatch(/^invalid_request: .+ \(param: merchantId\)$/m)

    const whole = path.join(dir, 'whole.json')
    await writeFile(whole, JSON.stringify({ format: 'bula-state', version: 1, collections: { merchants: [] } }))
    const wholeResult = await runCli(['state', 'import', whole], { env: other.env })
    expect(wholeResult.exitCode).toBe(1)
    expect(wholeResult.stderr).toContain(`invalid_file: ${whole} holds a whole simulator, not one merchant: start a simulator from it with \`bula serve --import ${whole}\``)

    const junk = path.join(dir, 'junk.json')
    await writeFile(junk, '{"hello": ')
    expect((await runCli(['state', 'import', junk], { env: other.env })).stderr).toMatch(/^invalid_file: .+junk\.json is not JSON/m)
    await writeFile(junk, '{"hello": "world"}')
    expect((await runCli(['state', 'import', junk], { env: other.env })).stderr).toContain('is not a bula state file of version 1')
    // Nested far deeper than any state file: JSON.parse reads it, but it could not be turned back into a request.
    const deep = path.join(dir, 'deep.json')
    await writeFile(deep, `{"format":"bula-state","version":1,"merchantId":"${owner.merchantId}","collections":{},"d":${'['.repeat(200_000)}${']'.repeat(200_000)}}`)
    const deepResult = await runCli(['state', 'import', deep, '--json'], { env: other.env })
    expect(deepResult.exitCode).toBe(1)
    expect(parseJsonOutput(deepResult)).toMatchObject({ error: { code: 'invalid_file', message: `${deep} nests objects and arrays more than 64 levels deep; a state file nests about six.` } })
    // A device that never ends is read only up to the import limit (it took 680 MB, then failed on the string's length).
    const endless = await runCli(['state', 'import', '/dev/zero', '--json'], { env: other.env })
    expect(parseJsonOutput(endless)).toMatchObject({ error: { code: 'invalid_file', param: 'file', message: '/dev/zero is larger than 16 MiB: the simulator imports a merchant\'s state of up to that size (about 28,000 Checkout Sessions).' } })
    // The owner's objects were not touched.
    expect((await api(owner).listCheckoutSessions()).data).toHaveLength(6)
  })

  it('resets only with --merchant, and only when confirmed', async () => {
    const merchant = await busyMerchant()
    const whole = await runCli(['state', 'reset', '--yes'], { env: merchant.env })
    expect(whole.exitCode).toBe(2)
    expect(whole.stderr.replace(/\s*›\s*/g, ' ')).toContain('The whole simulator cannot be reset through its API')
    const noTerminal = await runCli(['state', 'reset', '--merchant', '--json'], { env: merchant.env })
    expect(noTerminal.exitCode).toBe(2)
    expect(parseJsonOutput(noTerminal)).toMatchObject({ error: { code: 'invalid_usage', message: 'No terminal to confirm on: add --yes to go ahead.' } })
    expect((await api(merchant).listCheckoutSessions()).data).toHaveLength(6)
  })

  it.skipIf(!hasScript)('asks on a terminal, and resets only on yes', async () => {
    const merchant = await busyMerchant()
    // script(1) gives the command a terminal and types the answer into it.
    const onTerminal = (answer: string, extraArgs = '') =>
      execa('script', ['-qec', `node ${BIN} state reset --merchant${extraArgs}`, '/dev/null'], {
        env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' },
        input: `${answer}\n`,
        reject: false,
      })
    const declined = await onTerminal('n')
    expect(declined.exitCode).toBe(0)
    expect(declined.stdout).toContain(`Delete every test object of CLI business (${merchant.merchantId})? Keys, settings, the clock and live data stay.`)
    expect(declined.stdout).toContain('Nothing was reset.')
    expect((await api(merchant).listCheckoutSessions()).data).toHaveLength(6)
    // --json: the shape of a reset's answer, with reset false (docs/cli.md: {merchantId, mode, reset}).
    const declinedJson = await onTerminal('n', ' --json')
    expect(declinedJson.exitCode).toBe(0)
    expect(JSON.parse(declinedJson.stdout.slice(declinedJson.stdout.indexOf('{')))).toEqual({ merchantId: merchant.merchantId, mode: 'test', reset: false })

    const confirmed = await onTerminal('y')
    expect(confirmed.exitCode).toBe(0)
    expect(confirmed.stdout).toContain(`Reset merchant ${merchant.merchantId}`)
    expect((await api(merchant).listCheckoutSessions()).data).toEqual([])
  })

  it.skipIf(!hasScript)('asks on a terminal before import FILE replaces the objects, as reset does; never without one, nor with --yes', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Set-up over HTTP (bula state export has tests of its own above): a file of one session, then a second session.
    await merchant.api.createSession()
    const file = path.join(dir, 'asked.json')
    await writeFile(file, `${JSON.stringify(await succeed(merchant.api.get('/_sim/state')), null, 2)}\n`)
    await merchant.api.createSession()
    const sessionCount = async () => (await api(merchant).listCheckoutSessions()).data.length
    // script(1) gives the command a terminal and types the answer into it.
    const onTerminal = (answer: string, extraArgs = '') =>
      execa('script', ['-qec', `node ${BIN} state import ${file}${extraArgs}`, '/dev/null'], {
        env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' },
        input: `${answer}\n`,
        reject: false,
      })
    const declined = await onTerminal('n')
    expect(declined.exitCode, declined.stdout).toBe(0)
    expect(declined.stdout).toMatch(
      new RegExp(`Replace every test object of CLI business \\(${merchant.merchantId}\\) with those of ${file} \\(\\d+ objects?\\)\\? Keys, tier, verification and live data stay\\.`),
    )
    expect(declined.stdout).toContain('Nothing was imported.')
    expect(await sessionCount()).toBe(2)
    // --json: the shape of an import's answer, with imported null: nothing was replaced, unlike a file of no objects.
    const declinedJson = await onTerminal('n', ' --json')
    expect(declinedJson.exitCode).toBe(0)
    expect(JSON.parse(declinedJson.stdout.slice(declinedJson.stdout.indexOf('{')))).toEqual({ merchantId: merchant.merchantId, mode: 'test', imported: null })

    const confirmed = await onTerminal('y')
    expect(confirmed.exitCode, confirmed.stdout).toBe(0)
    expect(confirmed.stdout).toContain(`into merchant ${merchant.merchantId} from ${file}.`)
    expect(await sessionCount()).toBe(1)

    // --yes on a terminal: no question. (Without a terminal nothing is asked either: the round trip above imports so.)
    await merchant.api.createSession()
    const yes = await onTerminal('', ' --yes')
    expect(yes.exitCode, yes.stdout).toBe(0)
    expect(yes.stdout).not.toContain('[y/N]')
    expect(await sessionCount()).toBe(1)
  })

  it.skipIf(!hasScript)('takes Ctrl-D at the question as no, and ends on Ctrl-C with one line and exit 130', async () => {
    const merchant = await busyMerchant()
    // The key is typed once the question shows: typed earlier, the terminal
    // itself would turn it into a signal or an end of file before bula asks.
    const pressAtQuestion = async (key: string) => {
      const run = execa('script', ['-qec', `node ${BIN} state reset --merchant`, '/dev/null'], {
        env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' },
        stdin: 'pipe',
        reject: false,
      })
      run.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('[y/N]')) run.stdin.write(key)
      })
      return run
    }
    const ctrlD = await pressAtQuestion('\u0004')
    expect(ctrlD.exitCode).toBe(0)
    expect(ctrlD.stdout).toContain('Nothing was reset.')
    expect(ctrlD.stdout).not.toContain('AbortError')

    const ctrlC = await pressAtQuestion('\u0003')
    expect(ctrlC.exitCode).toBe(130)
    expect(ctrlC.stdout).toContain('Error: Cancelled with Ctrl-C: nothing was changed.')
    expect(ctrlC.stdout).not.toContain('AbortError')
    expect((await api(merchant).listCheckoutSessions()).data).toHaveLength(6)
  })
})
