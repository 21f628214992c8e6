import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approveVerificationResponseSchema, verificationResponseSchema } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe } from '../helpers/cli.js'

// The smallest valid PNG (1x1, transparent) and a JPEG header: the CLI reads
// the type from the magic bytes.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9])

const server = useServe()
let dir: string
let tinCard: string
let registration: string
let personalId: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-verify-'))
  tinCard = path.join(dir, 'tin-card.png')
  registration = path.join(dir, 'registration.png')
  personalId = path.join(dir, 'passport.jpg')
  await Promise.all([writeFile(tinCard, PNG), writeFile(registration, PNG), writeFile(personalId, JPEG)])
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('verify', () => {
  it('submits a business\'s documents, approves them and prints the live keys', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'business')
    const cli = (args: string[]) => runCli(args, { env: merchant.env })

    const initial = verificationResponseSchema.parse(parseJsonOutput(await cli(['verify', 'status', '--json'])))
    expect(initial.verification.status).toBe('unverified')

    const submitted = await cli([
      'verify', 'submit', '--tin', '123456789', '--tin-card-photo', tinCard, '--business-registration', registration, '--json',
    ])
    expect(submitted.exitCode, submitted.stdout).toBe(0)
    const { verification } = verificationResponseSchema.parse(parseJsonOutput(submitted))
    expect(verification.status).toBe('pending')
    expect(verification.documents.tinCardPhoto).toMatchObject({ contentType: 'image/png', bytes: PNG.length })

    const approved = await cli(['verify', 'approve'])
    expect(approved.exitCode, approved.stderr).toBe(0)
    expect(approved.stdout).toMatch(/^status:\s+approved$/m)
    const liveSecret = /^live secret key:\s+(sk_live_\S+)$/m.exec(approved.stdout)?.[1]
    expect(liveSecret).toBeDefined()
    expect(approved.stdout).toMatch(/^live publishable key:\s+pk_live_\S+$/m)
    expect(approved.stdout).toContain('shown only once')

    const live = await runCli(['merchants', 'me', '--json', '--api-key', liveSecret!], { env: merchant.env })
    expect(parseJsonOutput(live)).toMatchObject({ id: merchant.merchantId, mode: 'live' })
  })

  it('returns the live keys once with --json', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'business')
    const cli = (args: string[]) => runCli(args, { env: merchant.env })
    // Set-up over HTTP (bula verify submit has tests of its own).
    const png = `data:image/png;base64,${PNG.toString('base64')}`
    await succeed(merchant.api.post('/_sim/verification', { tin: '123-456-789', tinCardPhoto: png, businessRegistration: png }))
    const approved = approveVerificationResponseSchema.parse(parseJsonOutput(await cli(['verify', 'approve', '--json'])))
    expect(approved.keys.secret).toMatch(/^sk_live_/)
    expect(approved.keys.publishable).toMatch(/^pk_live_/)
  })

  it('rejects an individual\'s documents with a reason', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'individual')
    const cli = (args: string[]) => runCli(args, { env: merchant.env })
    const submitted = await cli(['verify', 'submit', '--tin', '987654321', '--tin-card-photo', tinCard, '--personal-id', personalId])
    expect(submitted.exitCode, submitted.stderr).toBe(0)
    expect(submitted.stdout).toMatch(/^status:\s+pending$/m)

    const rejected = await cli(['verify', 'reject', '--reason', 'TIN card photo is blurred', '--json'])
    const { verification } = verificationResponseSchema.parse(parseJsonOutput(rejected))
    expect(verification).toMatchObject({ status: 'rejected', rejectionReason: 'TIN card photo is blurred' })

    const status = await cli(['verify', 'status'])
    expect(status.stdout).toMatch(/^rejection reason:\s+TIN card photo is blurred$/m)
  })

  it('names a missing file before calling the simulator', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'business')
    const missing = path.join(dir, 'nope.png')
    const result = await runCli(['verify', 'submit', '--tin', '123456789', '--tin-card-photo', missing], { env: merchant.env })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(`file_unreadable: Cannot read ${missing}: no such file. (param: tin-card-photo)`)
  })

  it('refuses a file that is not a PNG or JPEG', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'business')
    const text = path.join(dir, 'notes.png')
    await writeFile(text, 'not an image')
    const result = await runCli(['verify', 'submit', '--tin', '123456789', '--tin-card-photo', text, '--json'], {
      env: merchant.env,
    })
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'unsupported_file', param: 'tin-card-photo' } })
  })
})
