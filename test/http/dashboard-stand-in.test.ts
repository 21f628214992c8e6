import { beforeAll, describe, expect, it } from 'vitest'
import { DAY, PNG_DATA_URL, client, signupMerchant, useTestServer } from '../helpers/http.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

const JPEG_BASE64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString('base64')

describe('the clock', () => {
  it('shows now and moves forward by ms or to a time', async () => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    const before = (await api.get('/_sim/clock')).body
    expect(before.offsetMs).toBe(0)
    const advanced = await api.post('/_sim/clock/advance', { ms: 2 * DAY })
    expect(advanced.status).toBe(200)
    expect(advanced.body.now).toBeGreaterThanOrEqual(before.now + 2 * DAY)
    // A fresh merchant's only due action is its weekly settlement run.
    expect(advanced.body.ran.every((action: { kind: string }) => action.kind === 'settlement.run')).toBe(true)
    const target = advanced.body.now + 5000
    const to = await api.post('/_sim/clock/advance', { to: target })
    expect(to.body.now).toBeGreaterThanOrEqual(target)
    expect(to.body.now).toBeLessThan(target + 1000)
  })

  it.each([
    [{ ms: -1 }, 'ms'],
    [{ ms: 1.5 }, 'ms'],
    [{ ms: '1000' }, 'ms'],
    [{}, 'ms'],
    [{ ms: 1, to: 2 }, 'ms'],
    [{ to: 1000 }, 'to'],
    [{ seconds: 1 }, 'seconds'],
  ])('refuses %j (400, naming %s)', async (body, param) => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    const response = await api.post('/_sim/clock/advance', body)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
  })

  it('is per merchant', async () => {
    const a = client(base, (await signupMerchant(base)).keys.secret)
    const b = client(base, (await signupMerchant(base)).keys.secret)
    const before = (await a.get('/_sim/clock')).body
    const advanced = (await a.post('/_sim/clock/advance', { ms: 10 * DAY })).body
    expect((await b.get('/_sim/clock')).body.offsetMs).toBe(0)
    // The clock lands on the target: the real time between the two requests is all that is added.
    expect(advanced.now - before.now).toBeGreaterThanOrEqual(10 * DAY)
    expect(advanced.now - before.now).toBeLessThan(10 * DAY + 5000)
  })
})

describe('settings', () => {
  it('has documented defaults and takes a partial update', async () => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    expect((await api.get('/_sim/settings')).body).toEqual({
      mode: 'test',
      displayName: 'Test business',
      vatNumber: null,
      invoicePrefix: 'INV-',
      invoiceNextNumber: 1,
      receiptsEnabled: true,
      payoutSchedule: 'weekly',
      payoutDestination: null,
      liveProviders: false,
    })
    const updated = await api.patch('/_sim/settings', {
      displayName: 'Bula Coffee',
      invoicePrefix: 'INV-2026',
      invoiceNextNumber: 100,
      receiptsEnabled: false,
      payoutSchedule: 'monthly',
      payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Bula Coffee Ltd', accountNumber: '12345678' },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ displayName: 'Bula Coffee', invoicePrefix: 'INV-2026', invoiceNextNumber: 100, payoutSchedule: 'monthly' })
    expect((await api.get('/v1/merchants/me')).body).toMatchObject({ displayName: 'Bula Coffee', payoutSchedule: 'monthly' })
    const wallet = await api.patch('/_sim/settings', { payoutDestination: { type: 'wallet', provider: 'mpaisa', phone: '+6797123456' } })
    expect(wallet.body.payoutDestination).toEqual({ type: 'wallet', provider: 'mpaisa', phone: '+6797123456' })
  })

  it.each([
    [{ payoutSchedule: 'hourly' }, 'payoutSchedule'],
    [{ invoicePrefix: 'BILL-' }, 'invoicePrefix'],
    [{ invoiceNextNumber: 0 }, 'invoiceNextNumber'],
    [{ displayName: '' }, 'displayName'],
    [{ vatNumber: '' }, 'vatNumber'],
    [{ vatNumber: 'x'.repeat(41) }, 'vatNumber'],
    [{ vatNumber: 50123450 }, 'vatNumber'],
    [{ payoutDestination: { type: 'wallet', provider: 'mpaisa', phone: '123' } }, 'payoutDestination.phone'],
    [{ colour: 'blue' }, 'colour'],
  ])('refuses %j naming %s', async (body, param) => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    const response = await api.patch('/_sim/settings', body)
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe(param)
  })

  it('keeps the merchant\'s VAT number, for this merchant only, and removes it with null (issue 14)', async () => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    const other = client(base, (await signupMerchant(base)).keys.secret)
    const set = await api.patch('/_sim/settings', { vatNumber: ' 50-12345-0-1 ' })
    expect(set.status).toBe(200)
    expect(set.body.vatNumber).toBe('50-12345-0-1')
    expect((await api.get('/_sim/settings')).body.vatNumber).toBe('50-12345-0-1')
    expect((await other.get('/_sim/settings')).body.vatNumber).toBeNull()
    // Another change leaves it as it is; null removes it.
    expect((await api.patch('/_sim/settings', { displayName: 'Bula Coffee' })).body.vatNumber).toBe('50-12345-0-1')
    expect((await api.patch('/_sim/settings', { vatNumber: null })).body.vatNumber).toBeNull()
  })

  it('keeps live Providers off until verification is approved', async () => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    const response = await api.patch('/_sim/settings', { liveProviders: true })
    expect(response.status).toBe(409)
    expect(response.body.error).toMatchObject({ code: 'verification_required', param: 'liveProviders' })
  })
})

describe('verification', () => {
  it('goes unverified → pending → approved, unlocking live mode once', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    expect((await api.get('/_sim/verification')).body.verification.status).toBe('unverified')
    const submitted = await api.post('/_sim/verification', {
      tin: '50-12345-6-7',
      tinCardPhoto: PNG_DATA_URL,
      businessRegistration: JPEG_BASE64,
    })
    expect(submitted.status).toBe(200)
    expect(submitted.body.verification).toMatchObject({ status: 'pending', tin: '******567', rejectionReason: null })
    expect(submitted.body.verification.documents.tinCardPhoto.contentType).toBe('image/png')
    expect(submitted.body.verification.documents.businessRegistration.contentType).toBe('image/jpeg')
    expect((await api.post('/_sim/verification', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL })).status).toBe(409)

    const approved = await api.post('/_sim/verification/approve')
    expect(approved.status).toBe(200)
    expect(approved.body.verification.status).toBe('approved')
    expect(approved.body.keys.secret).toMatch(/^sk_live_/)
    expect(approved.body.keys.publishable).toMatch(/^pk_live_/)
    expect((await client(base, approved.body.keys.secret).get('/_sim/settings')).body).toMatchObject({ mode: 'live', liveProviders: true })
    const again = await api.post('/_sim/verification/approve')
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('invalid_state')
  })

  it('rejects with a reason and takes a new submission', async () => {
    const { keys } = await signupMerchant(base, 'individual')
    const api = client(base, keys.secret)
    const misfiled = await api.post('/_sim/verification', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL })
    expect(misfiled.body.error.message).toBe('businessRegistration is not used for an individual account; send personalId.')
    await api.post('/_sim/verification', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, personalId: PNG_DATA_URL })
    expect((await api.post('/_sim/verification/reject', {})).body.error.param).toBe('reason')
    const rejected = await api.post('/_sim/verification/reject', { reason: 'TIN card photo is blurred' })
    expect(rejected.body.verification).toMatchObject({ status: 'rejected', rejectionReason: 'TIN card photo is blurred' })
    expect((await api.post('/_sim/verification/approve')).status).toBe(409)
    const again = await api.post('/_sim/verification', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, personalId: PNG_DATA_URL })
    expect(again.body.verification.status).toBe('pending')
    // Still no live key: only approval issues one.
    expect((await api.post('/v1/api-keys', { type: 'secret', mode: 'live' })).status).toBe(403)
  })

  it.each([
    ['business', { tin: '123456789', tinCardPhoto: PNG_DATA_URL }, 'businessRegistration'],
    ['business', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL, personalId: PNG_DATA_URL }, 'personalId'],
    ['individual', { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL }, 'businessRegistration'],
    ['individual', { tin: '12345678', tinCardPhoto: PNG_DATA_URL, personalId: PNG_DATA_URL }, 'tin'],
    ['individual', { tin: '123456789', tinCardPhoto: 'bm90IGFuIGltYWdl', personalId: PNG_DATA_URL }, 'tinCardPhoto'],
    ['individual', { tin: '123456789', tinCardPhoto: 'data:image/jpeg;base64,' + PNG_DATA_URL.split(',')[1], personalId: PNG_DATA_URL }, 'tinCardPhoto'],
    ['individual', { tin: '123456789', tinCardPhoto: '%%%', personalId: PNG_DATA_URL }, 'tinCardPhoto'],
    ['individual', { tin: '123456789', personalId: PNG_DATA_URL }, 'tinCardPhoto'],
  ] as const)('refuses a %s submission, naming the field', async (tier, body, param) => {
    const api = client(base, (await signupMerchant(base, tier)).keys.secret)
    const response = await api.post('/_sim/verification', body)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
    expect((await api.get('/_sim/verification')).body.verification.status).toBe('unverified')
  })
})
