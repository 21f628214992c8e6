import { execa, type Subprocess } from 'execa'
import { createHmac } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { Event } from '../../src/schemas/index.js'
import { formatTime } from '../../src/time.js'
import { verifyWebhook } from '../../src/webhooks/signature.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, useServe, type CliResult, type TestMerchant } from '../helpers/cli.js'
import { useReceivers, type ReceivedRequest } from '../helpers/receiver.js'
import { expectMode } from '../helpers/platform.js'
import { freePort } from '../helpers/ports.js'
import { BIN } from '../helpers/serve-process.js'

const server = useServe()

/** A CLI command that keeps running (listen, serve), read line by line. */
interface Running {
  lines: string[]
  /** The first line, from the `from`th on, that `match` accepts. */
  waitForLine(match: (line: string) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<string>
  /** Like waitForLine, for a JSON line with `event` set to this. */
  waitForJson<T = Record<string, unknown>>(event: string, options?: { from?: number; timeoutMs?: number }): Promise<T>
  /** Ctrl-C and the result. */
  interrupt(): Promise<CliResult>
}

const running: Running[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((command) => command.interrupt()))
})

const receiver = useReceivers()

function start(args: string[], env: Record<string, string>): Running {
  const result = runCli(args, { env })
  // runCli returns execa's subprocess, typed as its result only: reusing it
  // gives a long-running command the same isolated environment as every run.
  const child = result as unknown as Subprocess
  const lines: string[] = []
  const wake = new Set<() => void>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line)
    for (const waiter of wake) waiter()
  })
  let exited: CliResult | undefined
  const done = result.then((finished) => {
    exited = finished
    for (const waiter of wake) waiter()
    return finished
  })
  const waitForLine: Running['waitForLine'] = (match, { from = 0, timeoutMs = 10_000 } = {}) =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = lines.slice(from).find(match)
        if (found !== undefined || exited) {
          wake.delete(check)
          clearTimeout(timer)
          if (found !== undefined) resolve(found)
          else reject(new Error(`bula ${args.join(' ')} exited (${exited?.exitCode}):\n${lines.join('\n')}\n${exited?.stderr}`))
        }
      }
      const timer = setTimeout(() => {
        wake.delete(check)
        reject(new Error(`no such line from bula ${args.join(' ')} within ${timeoutMs} ms:\n${lines.join('\n')}`))
      }, timeoutMs)
      wake.add(check)
      check()
    })
  const command: Running = {
    lines,
    waitForLine,
    waitForJson: async (event, options) =>
      JSON.parse(await waitForLine((line) => line.startsWith('{') && JSON.parse(line).event === event, options)),
    interrupt: async () => {
      child.kill('SIGINT')
      return done
    },
  }
  running.push(command)
  return command
}

interface Ready {
  secret: string
  forwardTo: string
  merchantId: string
  mode: string
  events: string[] | null
}

interface DeliveryLine {
  type: string
  eventId: string
  status: number | null
  latencyMs: number
}

const listen = (merchant: TestMerchant, args: string[]) => start(['listen', ...args], merchant.env)

async function trigger(merchant: TestMerchant, type: string): Promise<Event[]> {
  const result = await runCli(['trigger', type, '--json'], { env: merchant.env })
  expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  return parseJsonOutput<{ events: Event[] }>(result).events
}

const header = (request: ReceivedRequest, name: string): string => String(request.headers[name])
const eventIds = (requests: ReceivedRequest[]): string[] => requests.map((request) => header(request, 'x-service-event-id'))

/**
 * Runs `bula listen` on a pseudo-terminal of 100 × 30 (util-linux `script`;
 * `exec` so that Ctrl-C reaches listen, not a waiting shell) with `env` as
 * its whole environment, presses Ctrl-C once `isReady` holds for what the
 * terminal shows, and answers all it showed and the exit code.
 */
async function listenOnTerminal(env: NodeJS.ProcessEnv, isReady: (screen: string) => boolean): Promise<{ screen: string; exitCode: number | undefined }> {
  const child = execa('script', ['-qfec', `stty cols 100 rows 30; exec node ${BIN} listen --forward-to 127.0.0.1:9/hooks`, '/dev/null'], {
    env,
    extendEnv: false,
    stdin: 'pipe',
    reject: false,
    timeout: 30_000,
  })
  let screen = ''
  await new Promise<void>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      screen += chunk.toString()
      if (isReady(screen)) resolve()
    })
  })
  child.stdin!.write('\x03')
  const { exitCode } = await child
  return { screen, exitCode }
}

describe('bula listen', () => {
  it('forwards each event to the receiver, signed with the printed secret, and reports it (--json)', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const hook = await receiver()
    const listener = listen(merchant, ['--forward-to', hook.url, '--json'])
    const ready = await listener.waitForJson<Ready>('ready')
    expect(listener.lines[0]).toBe(JSON.stringify({ event: 'ready', ...ready }))
    expect(ready).toMatchObject({ forwardTo: hook.url, merchantId: merchant.merchantId, mode: 'test', events: null })
    expect(ready.secret).toMatch(/^whsec_/)

    const events = await trigger(merchant, 'checkout_session.succeeded')
    const requests = await hook.waitFor(3)
    expect(eventIds(requests)).toEqual(events.map((event) => event.event_id))

    const request = requests[2]!
    const nowSeconds = Math.floor(Date.now() / 1000)
    const timestamp = Number(header(request, 'service-timestamp'))
    expect(Math.abs(nowSeconds - timestamp)).toBeLessThan(30)
    const expected = createHmac('sha256', ready.secret).update(`${timestamp}.${request.body}`).digest('hex')
    expect(header(request, 'service-signature')).toBe(`v1=${expected}`)
    expect(request.headers['content-type']).toBe('application/json')
    const payload = verifyWebhook<Event>(request.body, request.headers, ready.secret)
    expect(payload).toEqual(events[2])
    expect(payload).toMatchObject({ type: 'checkout_session.succeeded', mode: 'test', event_id: header(request, 'x-service-event-id') })
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/webhooks')

    const delivery = await listener.waitForJson<DeliveryLine>('delivery', { from: 3 })
    expect(delivery).toMatchObject({ type: 'checkout_session.succeeded', eventId: events[2]!.event_id, createdAt: events[2]!.createdAt, status: 200 })
    expect(delivery.latencyMs).toBeGreaterThanOrEqual(0)

    const stopped = await listener.interrupt()
    expect(stopped.exitCode).toBe(0)
    expect(stopped.stdout.split('\n').every((line) => JSON.parse(line).event !== undefined)).toBe(true)
  })

  it('keeps its secret across restarts, and prints only the secret with --print-secret', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const hook = await receiver()
    const first = await listen(merchant, ['--forward-to', hook.url, '--json']).waitForJson<Ready>('ready')
    await Promise.all(running.splice(0).map((command) => command.interrupt()))
    const second = await listen(merchant, ['--forward-to', hook.url, '--json']).waitForJson<Ready>('ready')
    expect(second.secret).toBe(first.secret)

    const printed = await runCli(['listen', '--print-secret'], { env: merchant.env })
    expect(printed.exitCode, printed.stderr).toBe(0)
    expect(printed.stdout).toBe(first.secret)
    expect(parseJsonOutput(await runCli(['listen', '--print-secret', '--json'], { env: merchant.env }))).toEqual({ secret: first.secret })

    const other = await signupMerchant(server().baseUrl)
    expect((await runCli(['listen', '--print-secret'], { env: other.env })).stdout).not.toBe(first.secret)
    await expectMode(path.join(cliConfigDir(), 'listen-secrets.json'), 0o600)

    // The secret signs what the merchant's receiver gets after the restart.
    const [event] = await merchant.trigger('checkout_session.cancelled')
    const [request] = await hook.waitFor(1)
    expect(verifyWebhook<Event>(request!.body, request!.headers, first.secret).event_id).toBe(event!.event_id)
  })

  it('forwards only the --events types, in plain lines when stdout is not a terminal, timed on the merchant\'s clock', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Ten days ahead of the wall: each line shows when its event happened for the merchant (issue 14), not when it was forwarded.
    expect((await runCli(['clock', 'advance', '10d'], { env: merchant.env })).exitCode).toBe(0)
    const hook = await receiver()
    hook.respondWith((request) => (request.body.includes('"payment.failed"') ? 500 : 200))
    const listener = listen(merchant, ['--forward-to', hook.url, '--events', 'checkout_session.succeeded,payment.failed'])
    await listener.waitForLine((line) => line === 'Press Ctrl-C to stop.')
    const secret = /^Webhook signing secret: (whsec_\S+) /.exec(listener.lines.find((line) => line.startsWith('Webhook signing secret:'))!)?.[1]
    expect(secret).toBe((await runCli(['listen', '--print-secret'], { env: merchant.env })).stdout)
    expect(listener.lines).toContain('Only: checkout_session.succeeded, payment.failed')

    const succeeded = await merchant.trigger('checkout_session.succeeded')
    const failed = await merchant.trigger('payment.failed')
    await hook.waitFor(2)
    // checkout_session.failed follows payment.failed on the stream: give a wrongly forwarded one time to arrive.
    await listener.waitForLine((line) => line.includes(' payment.failed '))
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(eventIds(hook.requests)).toEqual([succeeded[2]!.event_id, failed[1]!.event_id])

    const deliveries = listener.lines.filter((line) => / FJT \(/.test(line))
    expect(deliveries).toHaveLength(2)
    const at = (event: Event): string => formatTime(event.createdAt, { seconds: true })
    expect(deliveries[0]).toMatch(new RegExp(`  checkout_session\\.succeeded\\s+${succeeded[2]!.event_id}  200  \\d+ ms$`))
    expect(deliveries[0]!.startsWith(`${at(succeeded[2]!)}  `)).toBe(true)
    expect(deliveries[1]).toMatch(new RegExp(`  payment\\.failed\\s+${failed[1]!.event_id}  500  \\d+ ms$`))
    expect(deliveries[1]!.startsWith(`${at(failed[1]!)}  `)).toBe(true)
    expect(succeeded[2]!.createdAt - Date.now()).toBeGreaterThan(9 * 24 * 60 * 60 * 1000)
    expect((await listener.interrupt()).exitCode).toBe(0)
  })

  it('shows a delivery the receiver never answered', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const closed = await receiver()
    await closed.close()
    const listener = listen(merchant, ['--forward-to', closed.url, '--json'])
    await listener.waitForJson('ready')
    await merchant.trigger('checkout_session.cancelled')
    const delivery = await listener.waitForJson<DeliveryLine & { error: string }>('delivery')
    expect(delivery).toMatchObject({ type: 'checkout_session.cancelled', status: null })
    expect(delivery.error).toContain(`connection refused: is your app listening at ${closed.url}?`)
  })

  it.skipIf(!existsSync('/usr/bin/script'))('prints plain lines on a dumb terminal (TERM=dumb, as in Emacs\' shell), which would show the live view\'s cursor moves as text', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const { screen, exitCode } = await listenOnTerminal({ ...process.env, ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), TERM: 'dumb' }, (shown) =>
      shown.includes('Webhook signing secret:'),
    )
    expect(exitCode).toBe(0)
    expect(screen).toContain('Ready. Forwarding test-mode events of')
    // No cursor hiding, synchronized output or erasure: nothing but text.
    expect(screen).not.toContain('\x1b')
  })

  it.skipIf(!existsSync('/usr/bin/script'))('draws the live view on a terminal, whose last frame says it stopped instead of inviting Ctrl-C', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // CI (set, whatever its value) turns the live view off: this test is about the terminal a person sees.
    const withoutCi = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI'))
    const { screen, exitCode } = await listenOnTerminal({ ...withoutCi, ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' }, (shown) =>
      stripVTControlCharacters(shown).includes('● Connected'),
    )
    expect(exitCode).toBe(0)
    const text = stripVTControlCharacters(screen)
    const lastFrame = text.slice(Math.max(text.lastIndexOf('● '), text.lastIndexOf('○ ')))
    expect(lastFrame).toMatch(/^○ Stopped\s+0 delivered, 0 not accepted\s*$/)
  })

  it('refuses a bad command line', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    for (const args of [[], ['--forward-to', 'ftp://x'], ['--forward-to', 'localhost:1/x', '--events', 'checkout_session.paid']]) {
      const result = await runCli(['listen', ...args, '--json'], { env: merchant.env })
      expect(result.exitCode, args.join(' ')).toBe(2)
      expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'invalid_usage' } })
    }
  })

  it('refuses a key the simulator does not know', async () => {
    const result = await runCli(['listen', '--forward-to', 'localhost:1/x'], { env: { BULA_BASE_URL: server().baseUrl, BULA_API_KEY: 'sk_test_nope' } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^invalid_api_key: /m)
  })
})

describe('bula listen across a simulator restart', () => {
  let dir: string | undefined
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const serve = async (port: number, dataFile: string): Promise<Running> => {
    const simulator = start(['serve', '--port', String(port), '--data', dataFile, '--json', '--no-save-profile', '--quiet'], {})
    await simulator.waitForJson('ready', { timeoutMs: 20_000 })
    return simulator
  }

  it('reconnects to the new simulator and resumes after the last event, missing and repeating nothing', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bula-listen-restart-'))
    const dataFile = path.join(dir, 'data.json')
    const port = await freePort()
    const first = await serve(port, dataFile)
    const merchant = await signupMerchant(`http://127.0.0.1:${port}`)
    const hook = await receiver()
    const listener = listen(merchant, ['--forward-to', hook.url, '--json'])
    const ready = await listener.waitForJson<Ready>('ready')

    const before = await merchant.trigger('checkout_session.succeeded')
    await hook.waitFor(3)

    // A graceful stop ends the stream; listen keeps trying while nothing answers.
    const stopped = await first.interrupt()
    expect(stopped.exitCode).toBe(0)
    await listener.waitForJson('disconnected')
    const second = await serve(port, dataFile)
    // Triggered at once, most likely before listen is back: it must arrive all the same, through Last-Event-ID.
    const after = await merchant.trigger('checkout_session.cancelled')
    const requests = await hook.waitFor(4, 15_000)
    const reconnected = await listener.waitForJson<{ lastEventId: string }>('reconnected')
    expect(reconnected.lastEventId).toBe(before[2]!.event_id)

    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(eventIds(requests)).toEqual([...before, ...after].map((event) => event.event_id))
    const last = requests[3]!
    expect(verifyWebhook<Event>(last.body, last.headers, ready.secret)).toMatchObject({ type: 'checkout_session.cancelled' })

    expect((await listener.interrupt()).exitCode).toBe(0)
    expect((await second.interrupt()).exitCode).toBe(0)
  })

  it('waits for a simulator that is not up yet, then forwards as usual', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'bula-listen-wait-'))
    try {
      const dataFile = path.join(folder, 'data.json')
      const port = await freePort()
      // The merchant exists in the data file; the simulator that holds it is stopped when listen starts.
      const first = await serve(port, dataFile)
      const merchant = await signupMerchant(`http://127.0.0.1:${port}`)
      expect((await first.interrupt()).exitCode).toBe(0)

      const hook = await receiver()
      const plain = listen(merchant, ['--forward-to', hook.url])
      const listener = listen(merchant, ['--forward-to', hook.url, '--json'])
      const waiting = await listener.waitForJson<{ reason: string; retryInMs: number }>('waiting')
      // Named as the CLI was started (runCli sets no npm_command): bare bula.
      expect(waiting.reason).toBe(`Could not reach the simulator at http://127.0.0.1:${port}. Start it with \`bula serve --port ${port}\`.`)
      await plain.waitForLine((line) => line.includes('Waiting for the simulator: Could not reach the simulator'))
      // A retry that fails the same way adds no plain line.
      await listener.waitForJson('waiting', { from: listener.lines.length })
      expect(plain.lines.filter((line) => line.includes('Waiting for the simulator'))).toHaveLength(1)

      const second = await serve(port, dataFile)
      const ready = await listener.waitForJson<Ready>('ready', { timeoutMs: 15_000 })
      expect(ready.merchantId).toBe(merchant.merchantId)
      await plain.waitForLine((line) => line.includes('Ready.'), { timeoutMs: 15_000 })
      await merchant.trigger('checkout_session.succeeded')
      // Three events, each forwarded by both listeners.
      const requests = await hook.waitFor(6, 15_000)
      expect(verifyWebhook<Event>(requests.at(-1)!.body, requests.at(-1)!.headers, ready.secret)).toMatchObject({ mode: 'test' })
      expect((await listener.interrupt()).exitCode).toBe(0)
      expect((await plain.interrupt()).exitCode).toBe(0)
      expect((await second.interrupt()).exitCode).toBe(0)
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it('stops waiting on Ctrl-C, exit 0', async () => {
    const hook = await receiver()
    const listener = start(['listen', '--forward-to', hook.url, '--json'], { BULA_BASE_URL: `http://127.0.0.1:${await freePort()}`, BULA_API_KEY: 'sk_test_any' })
    await listener.waitForJson('waiting')
    expect((await listener.interrupt()).exitCode).toBe(0)
  })
})
