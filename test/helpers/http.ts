import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest'
import { checkConformance } from './conformance.js'
import { exchange } from './exchange.js'
import { startServer, type RunningServer, type StartOptions } from '../../server/start.js'

export interface Api {
  status: number
  body: any // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever the server answered
  headers: Headers
}

/** The simulator in this process, in memory unless a data file is given, on a free port, quiet. */
export function startTestServer(options: StartOptions = {}): Promise<RunningServer> {
  return startServer({ port: 0, logRequests: false, log: () => {}, ...options })
}

/**
 * The simulator of a test file (or of a describe block, when called inside
 * one): started before its tests, in the order hooks are registered, so a
 * later beforeAll can use it, and closed after them. `per: 'test'` starts a
 * fresh one for each test (options as a function then make fresh parts, such
 * as a new manual clock). Call the returned function for the running server.
 */
export function useTestServer(
  options: StartOptions | (() => StartOptions) = {},
  { per = 'file' }: { per?: 'file' | 'test' } = {},
): () => RunningServer {
  let server: RunningServer | undefined
  const start = async () => {
    server = await startTestServer(typeof options === 'function' ? options() : options)
  }
  const stop = async () => {
    await server?.close()
    server = undefined
  }
  if (per === 'test') {
    beforeEach(start)
    afterEach(stop)
  } else {
    beforeAll(start)
    afterAll(stop)
  }
  return () => {
    if (!server) throw new Error('useTestServer(): the simulator runs only inside the tests and hooks after it')
    return server
  }
}

/** A simulator for the length of `use` (a restart inside a test: two in turn on one data file), closed however `use` ends. */
export async function withTestServer<T>(options: StartOptions, use: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startTestServer(options)
  try {
    return await use(server)
  } finally {
    await server.close()
  }
}

/** One HTTP call with an optional bearer key; JSON in, JSON out. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Api> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  let body: string | Buffer | undefined = options.rawBody
  if (options.body !== undefined) body = JSON.stringify(options.body)
  if (body !== undefined) headers['content-type'] ??= 'application/json'
  const response = await exchange(`${baseUrl}${path}`, method, headers, body)
  const { text } = response
  let parsed: unknown = text
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    // not JSON: the test sees the text
  }
  // Every answer a test receives is held to /openapi.json (test/setup/conformance.ts fails the file otherwise).
  if (!options.headers?.host) await checkConformance(baseUrl, method, path, response.status, response.headers, parsed)
  return { status: response.status, body: parsed, headers: response.headers }
}

/** A client bound to one server and key. */
export function client(baseUrl: string, key?: string) {
  return {
    get: (path: string, options: Parameters<typeof call>[3] = {}) => call(baseUrl, 'GET', path, { key, ...options }),
    post: (path: string, body?: unknown, options: Parameters<typeof call>[3] = {}) =>
      call(baseUrl, 'POST', path, { key, body, ...options }),
    patch: (path: string, body?: unknown, options: Parameters<typeof call>[3] = {}) =>
      call(baseUrl, 'PATCH', path, { key, body, ...options }),
    put: (path: string, body?: unknown, options: Parameters<typeof call>[3] = {}) => call(baseUrl, 'PUT', path, { key, body, ...options }),
    delete: (path: string, options: Parameters<typeof call>[3] = {}) => call(baseUrl, 'DELETE', path, { key, ...options }),
  }
}

/**
 * Waits until the key's merchant and mode have webhook endpoints, all of them
 * active. A receiver has the webhook.verified request before the simulator
 * has recorded its 2xx answer, and an event made in between skips the
 * endpoint (the spec: delivery to an unverified endpoint is skipped). A test
 * that wants its events delivered waits for this, not for the request.
 */
export async function endpointsActive(api: ReturnType<typeof client>): Promise<void> {
  await expect
    .poll(async () => (await api.get('/v1/webhook-endpoints')).body.data.map((endpoint: { status: string }) => endpoint.status))
    .toSatisfy((statuses: string[]) => statuses.length > 0 && statuses.every((status) => status === 'active'))
}

export async function signupMerchant(baseUrl: string, tier: 'business' | 'individual' = 'business') {
  const response = await call(baseUrl, 'POST', '/_sim/merchants', {
    body: { email: `${tier}@example.test`, name: `Test ${tier}`, tier },
  })
  if (response.status !== 201) throw new Error(`signup failed: ${JSON.stringify(response.body)}`)
  return response.body as { merchant: { id: string }; keys: { secret: string; publishable: string } }
}

/** A tiny valid PNG (1×1), as a data URL. */
export const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** Verification submitted and approved: returns the first live keys. */
export async function unlockLive(baseUrl: string, secret: string, tier: 'business' | 'individual' = 'business') {
  const api = client(baseUrl, secret)
  const document = tier === 'business' ? { businessRegistration: PNG_DATA_URL } : { personalId: PNG_DATA_URL }
  const submitted = await api.post('/_sim/verification', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, ...document })
  if (submitted.status !== 200) throw new Error(`verification failed: ${JSON.stringify(submitted.body)}`)
  const approved = await api.post('/_sim/verification/approve')
  return approved.body.keys as { secret: string; publishable: string }
}

export const HOUR = 60 * 60 * 1000
export const DAY = 24 * HOUR
