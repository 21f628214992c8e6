import { execa } from 'execa'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The built package (npm run build, which `npm test` runs first), seen the way
// a merchant's project sees it: another folder whose node_modules/bula is
// this repository. @types/node comes along, as in any Node project in
// TypeScript: the declarations mention Buffer.
const REPO = path.resolve(import.meta.dirname, '../..')
let project: string

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'bula-consumer-'))
  mkdirSync(path.join(project, 'node_modules'))
  symlinkSync(REPO, path.join(project, 'node_modules', 'bula-tools'), 'dir')
  mkdirSync(path.join(project, 'node_modules', '@types'))
  symlinkSync(path.join(REPO, 'node_modules', '@types', 'node'), path.join(project, 'node_modules', '@types', 'node'), 'dir')
})

afterAll(() => {
  rmSync(project, { recursive: true, force: true })
})

describe("import ... from 'bula-tools'", () => {
  it('gives a merchant the client, the verifier, the signer and the header names', async () => {
    const script = `
      import { BulaClient, ApiError, verifyWebhook, WebhookVerificationError, computeSignature, signedHeaders,
        SIGNATURE_HEADER, TIMESTAMP_HEADER, EVENT_ID_HEADER, DEFAULT_TOLERANCE_SECONDS } from 'bula-tools'
      const body = JSON.stringify({ event_id: 'evt_1', type: 'checkout_session.succeeded', mode: 'test', createdAt: 0, data: { object: {} } })
      const now = Math.floor(Date.now() / 1000)
      const event = verifyWebhook(body, signedHeaders(['whsec_a'], now, body, 'evt_1'), 'whsec_a')
      let refused
      try {
        verifyWebhook(body, { 'Service-Signature': 'v1=' + computeSignature('whsec_b', now, body), 'Service-Timestamp': String(now) }, 'whsec_a')
      } catch (error) {
        refused = error instanceof WebhookVerificationError ? error.code : 'wrong error type'
      }
      const client = new BulaClient({ baseUrl: 'http://127.0.0.1:4111/', apiKey: 'sk_test_x' })
      console.log(JSON.stringify({
        eventId: event.event_id, refused, baseUrl: client.baseUrl, apiError: new ApiError(400, 'invalid_request', 'm') instanceof Error,
        headers: [SIGNATURE_HEADER, TIMESTAMP_HEADER, EVENT_ID_HEADER], tolerance: DEFAULT_TOLERANCE_SECONDS,
      }))
    `
    const result = await execa('node', ['--input-type=module', '-e', script], { cwd: project, reject: false })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      eventId: 'evt_1',
      refused: 'invalid_signature',
      baseUrl: 'http://127.0.0.1:4111',
      apiError: true,
      headers: ['Service-Signature', 'Service-Timestamp', 'X-Service-Event-Id'],
      tolerance: 300,
    })
  })

  it('types the exports for TypeScript projects', async () => {
    writeFileSync(
      path.join(project, 'merchant.ts'),
      `import { BulaClient, verifyWebhook, type CheckoutSession, type Event, type BulaClientOptions } from 'bula-tools'
const options: BulaClientOptions = { baseUrl: 'http://127.0.0.1:4111', apiKey: 'sk_test_x' }
export async function fulfil(raw: string, headers: Record<string, string>): Promise<CheckoutSession> {
  const event = verifyWebhook<Event>(raw, headers, 'whsec_a')
  return new BulaClient(options).getCheckoutSession(String(event.data.object.id))
}
// @ts-expect-error: the package entry does not export internals
import { startServer } from 'bula-tools'
`,
    )
    // skipLibCheck as most projects set it: what is tested is that 'bula-tools' resolves to typed exports.
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
        files: ['merchant.ts'],
      }),
    )
    const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
    const result = await execa('node', [tsc, '-p', project], { cwd: project, reject: false })
    expect(result.exitCode, result.stdout).toBe(0)
  })

  it('keeps package.json importable', async () => {
    const result = await execa(
      'node',
      ['--input-type=module', '-e', "import pkg from 'bula-tools/package.json' with { type: 'json' }; console.log(pkg.name)"],
      { cwd: project, reject: false },
    )
    expect(result.stdout).toBe('bula-tools')
  })
})
