import { execa, type Result } from 'execa'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { BulaClient } from '../../src/client/bula-client.js'
import { triggerEvent } from '../../src/fixtures/trigger.js'
import {
  checkoutSessionSchema,
  invoiceSchema,
  type CheckoutSession,
  type CreateCheckoutSessionRequest,
  type CreateInvoiceRequest,
  type Event,
  type Invoice,
} from '../../src/schemas/index.js'
import { BIN, startServe, type ServeProcess } from './serve-process.js'

export type CliResult = Result<{ reject: false }>

// A worker runs several test files with this module loaded once
// (isolate: false), so the config folder is kept per test file: files never
// see each other's profiles.
const configDirs = new Map<string, string>()
const testFile = (): string => expect.getState().testPath ?? ''

/** The per-test-file BULA_CONFIG_DIR the CLI runs with, created on first use. */
export function cliConfigDir(): string {
  let dir = configDirs.get(testFile())
  if (!dir) {
    dir = mkdtempSync(path.join(tmpdir(), 'bula-cli-'))
    configDirs.set(testFile(), dir)
  }
  return dir
}

/** For the test file's afterAll. */
export function removeCliConfigDir(): void {
  const dir = configDirs.get(testFile())
  if (dir) rmSync(dir, { recursive: true, force: true })
  configDirs.delete(testFile())
}

/**
 * Runs the built `bula` with these arguments and returns the result whatever
 * the exit code. The environment is the parent's without BULA_* and colour
 * variables (a developer's own key or profile must not leak in) and without
 * npm_command (under `npx vitest` every hint would say `npx bula`), plus the
 * per-file config folder and `options.env`. `cwd` is where a file named by a
 * relative path (such as `-` written by mistake) would land.
 */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(BULA_|NO_COLOR$|FORCE_COLOR$|npm_command$)/.test(name)),
  )
  return execa('node', [BIN, ...args], {
    env: { ...inherited, BULA_CONFIG_DIR: cliConfigDir(), ...options.env },
    extendEnv: false,
    cwd: options.cwd,
    reject: false,
    stdin: 'ignore',
  })
}

/** Parses the command's stdout as JSON, with the output in the message when it is not. */
export function parseJsonOutput<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.exitCode}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}

/** What a set-up request answered. */
export interface SetUpAnswer {
  status: number
  body: any // eslint-disable-line @typescript-eslint/no-explicit-any -- each route's own JSON
}

/**
 * One request to `bula serve` for a test's set-up, on a connection of its
 * own (agent: false). fetch keeps connections alive between requests, and
 * between two CLI starts a loaded machine left one idle for as long as the
 * server keeps it: the next request met it closing ("other side closed").
 */
function setUpRequest(baseUrl: string, key: string | undefined, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<SetUpAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(route, baseUrl),
      {
        method,
        agent: false,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(text === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const answer = Buffer.concat(chunks).toString('utf8')
          resolve({ status: response.statusCode ?? 0, body: answer.length > 0 ? JSON.parse(answer) : undefined })
        })
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(text)
  })
}

/** The body of a set-up request's answer, which must have the `status` given (the answer is in the failure message). */
export async function succeed(request: Promise<SetUpAnswer>, status = 200): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- each route's own JSON
  const answer = await request
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  return answer.body
}

/** The API with one key, for set-up (setUpRequest). */
function setUpApi(baseUrl: string, key?: string) {
  const post = (route: string, body?: unknown, { headers }: { headers?: Record<string, string> } = {}) => setUpRequest(baseUrl, key, 'POST', route, body, headers)
  return {
    get: (route: string) => setUpRequest(baseUrl, key, 'GET', route),
    post,
    patch: (route: string, body?: unknown) => setUpRequest(baseUrl, key, 'PATCH', route, body),
    delete: (route: string) => setUpRequest(baseUrl, key, 'DELETE', route),
    /** A Checkout Session (FJ$15.00 unless `body` says otherwise), with a fresh Idempotency-Key. */
    createSession: async (body: Partial<CreateCheckoutSessionRequest> = {}): Promise<CheckoutSession> =>
      checkoutSessionSchema.parse(await succeed(post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD', ...body }, { headers: { 'idempotency-key': randomUUID() } }), 201)),
    /** The customer stand-in pays (or fails) a session, as `bula sessions pay` does. */
    paySession: async (id: string, outcome: 'succeeded' | 'failed' | 'processing' = 'succeeded'): Promise<void> => {
      await succeed(post(`/_sim/checkout-sessions/${id}/pay`, { outcome }))
    },
    /** A draft Invoice (one item of FJ$45.50 due 2026-12-31 unless `body` says otherwise), with a fresh Idempotency-Key. */
    createInvoice: async (body: Partial<CreateInvoiceRequest> = {}): Promise<Invoice> =>
      invoiceSchema.parse(
        await succeed(
          post('/v1/invoices', { customerName: 'Mere Vula', dueDate: '2026-12-31', items: [{ description: 'Kava bowl', quantity: 1, unitPrice: 4550 }], ...body }, { headers: { 'idempotency-key': randomUUID() } }),
          201,
        ),
      ),
  }
}

export interface TestMerchant {
  merchantId: string
  secret: string
  publishable: string
  /** Environment that points the CLI at this merchant. */
  env: { BULA_BASE_URL: string; BULA_API_KEY: string }
  /**
   * The API with this merchant's secret key, for a test's set-up (the
   * payments, settings and objects it needs before the command it is about):
   * an HTTP call instead of a CLI start.
   */
  api: ReturnType<typeof setUpApi>
  /**
   * Runs what `bula trigger <type>` runs (its recipe in templates/fixtures/)
   * in this process, through BulaClient, and gives the events it logged,
   * oldest first: set-up for a test about another command.
   */
  trigger(type: string): Promise<Event[]>
}

/**
 * Signs up a fresh merchant over HTTP, so each test owns its state; `bula
 * merchants signup` itself is tested in merchants-and-profiles.test.ts.
 */
export async function signupMerchant(baseUrl: string, tier: 'business' | 'individual' = 'business'): Promise<TestMerchant> {
  const { merchant, keys } = (await succeed(setUpApi(baseUrl).post('/_sim/merchants', { email: `cli-${tier}@example.test`, name: `CLI ${tier}`, tier }), 201)) as {
    merchant: { id: string }
    keys: { secret: string; publishable: string }
  }
  return {
    merchantId: merchant.id,
    secret: keys.secret,
    publishable: keys.publishable,
    env: { BULA_BASE_URL: baseUrl, BULA_API_KEY: keys.secret },
    api: setUpApi(baseUrl, keys.secret),
    trigger: async (type) => (await triggerEvent(new BulaClient({ baseUrl, apiKey: keys.secret }), type)).events,
  }
}

/**
 * For a test file that runs the CLI against a simulator: starts an in-memory
 * `bula serve` before the file's tests, stops it and removes the config
 * folder after them, and returns an accessor for the running server.
 */
export function useServe(): () => ServeProcess {
  let serve: ServeProcess | undefined
  beforeAll(async () => {
    serve = await startServe({ memory: true })
  })
  afterAll(async () => {
    await serve?.stop()
    removeCliConfigDir()
  })
  return () => {
    if (!serve) throw new Error('useServe(): the simulator is not running (called outside a test?)')
    return serve
  }
}
