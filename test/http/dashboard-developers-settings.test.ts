import { beforeAll, describe, expect, it } from 'vitest'
import { DashboardAgent, csrfOf, errorFlashOf, type DashboardPage } from '../helpers/dashboard.js'
import { PNG_DATA_URL, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'
import { sentInvoice } from '../helpers/invoices.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

const SCRIPT_NAME = '<script>alert(1)</script> & Co'
const ESCAPED_NAME = '&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'
const PNG = Buffer.from(PNG_DATA_URL.split(',')[1]!, 'base64')

/** The plaintext a flash shows once. */
function secretOf(page: DashboardPage): string {
  const match = /data-testid="secret">([^<]+)</.exec(page.html)
  if (!match) throw new Error(`no secret on the page: ${page.html.slice(0, 300)}`)
  return match[1]!
}


let sessionCounter = 0
const idempotent = () => ({ headers: { 'idempotency-key': `dash-dev-settings-${++sessionCounter}` } })

describe('Developers', () => {
  it('lists masked keys; a created key is shown once and works against the API', async () => {
    const { merchant, keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const page = await agent.get('/dashboard/developers')
    expect(page.status).toBe(200)
    expect(page.html).toContain(`sk_test_…${keys.secret.slice(-4)}`)
    expect(page.html).toContain(`pk_test_…${keys.publishable.slice(-4)}`)
    expect(page.html).toContain('You signed in with this key.')
    expect(page.html).toContain('revoking it, or the end of its rotation overlap, signs you out here')
    expect(page.html).not.toContain(keys.secret)
    expect(page.html).not.toContain(keys.publishable)

    const created = await agent.submit('/dashboard/developers', '/dashboard/developers/keys', { type: 'secret' })
    expect(created.status).toBe(303)
    expect(created.location).toBe('/dashboard/developers')
    const shown = await agent.follow(created)
    const plaintext = secretOf(shown)
    expect(plaintext).toMatch(/^sk_test_[0-9A-Za-z]+$/)
    expect(shown.html).toContain('Shown only now')
    const me = await client(base, plaintext).get('/v1/merchants/me')
    expect(me.status).toBe(200)
    expect(me.body.id).toBe(merchant.id)

    const later = await agent.get('/dashboard/developers')
    expect(later.html).not.toContain(plaintext)
    expect(later.html).toContain(`sk_test_…${plaintext.slice(-4)}`)

    const publishable = secretOf(await agent.follow(await agent.submit('/dashboard/developers', '/dashboard/developers/keys', { type: 'publishable' })))
    expect(publishable).toMatch(/^pk_test_/)
    const listed = await client(base, keys.secret).get('/v1/api-keys')
    expect(listed.body.data.map((key: { type: string }) => key.type)).toEqual(['secret', 'publishable', 'secret', 'publishable'])

    const refused = await agent.follow(await agent.submit('/dashboard/developers', '/dashboard/developers/keys', { type: 'root' }))
    expect(errorFlashOf(refused)).toContain('Field: type')
    expect((await client(base, keys.secret).get('/v1/api-keys')).body.data).toHaveLength(4)
  })

  it('rotates with an overlap and revokes at once; revoking its own key signs the session out', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const signedInKey = (await api.get('/v1/api-keys')).body.data.find((key: { type: string }) => key.type === 'secret')

    const rotated = await agent.follow(await agent.submit('/dashboard/developers', `/dashboard/developers/keys/${signedInKey.id}/rotate`))
    const replacement = secretOf(rotated)
    expect(replacement).toMatch(/^sk_test_/)
    expect(rotated.html).toContain('keeps working until')
    expect(rotated.html).toContain('72 hours')
    expect(rotated.html).toContain('badge-wait">expiring')
    expect((await client(base, replacement).get('/v1/merchants/me')).status).toBe(200)
    expect((await api.get('/v1/merchants/me')).status).toBe(200)
    expect((await agent.get('/dashboard/developers')).html).not.toContain(replacement)

    const replacementAgent = await DashboardAgent.signIn(base, replacement)
    const revoked = await replacementAgent.follow(
      await replacementAgent.submit('/dashboard/developers', `/dashboard/developers/keys/${signedInKey.id}/revoke`),
    )
    expect(revoked.html).toContain(`Revoked sk_test_…${keys.secret.slice(-4)}`)
    expect(revoked.html).toContain('badge-bad">revoked')
    expect(revoked.html).not.toContain(`/dashboard/developers/keys/${signedInKey.id}/revoke`)
    expect((await api.get('/v1/merchants/me')).status).toBe(401)
    // The session signed in with the revoked key lasted only as long as its key (docs/security.md).
    const after = await agent.get('/dashboard/developers')
    expect(after.status).toBe(303)
    expect(after.location).toContain('/dashboard/sign-in')

    const again = await replacementAgent.follow(
      await replacementAgent.submit('/dashboard/developers', `/dashboard/developers/keys/${signedInKey.id}/revoke`),
    )
    expect(errorFlashOf(again)).toContain('already revoked')
  })

  it('another merchant\'s key cannot be rotated or revoked', async () => {
    const mine = await signupMerchant(base)
    const theirs = await signupMerchant(base)
    const theirApi = client(base, theirs.keys.secret)
    const theirKey = (await theirApi.get('/v1/api-keys')).body.data[0]
    const agent = await DashboardAgent.signIn(base, mine.keys.secret)
    for (const action of ['rotate', 'revoke']) {
      const refused = await agent.follow(await agent.submit('/dashboard/developers', `/dashboard/developers/keys/${theirKey.id}/${action}`))
      expect(errorFlashOf(refused)).toContain('No such API key')
    }
    expect((await theirApi.get('/v1/api-keys')).body.data[0].status).toBe('active')
  })
})

/** Everything the settings form sends, as a browser would with these values. */
const settingsForm = (fields: Record<string, string> = {}) => ({
  checkboxes: 'receiptsEnabled',
  displayName: 'Kai Store',
  vatNumber: '50-12345-0-1',
  invoicePrefix: 'INV-2026',
  invoiceNextNumber: '42',
  payoutSchedule: 'monthly',
  destinationType: 'bank_account',
  bankName: 'BSP',
  accountName: 'Kai Store Ltd',
  accountNumber: '1234 5678',
  walletProvider: 'mpaisa',
  walletPhone: '',
  ...fields,
})

describe('Settings', () => {
  it('the form shows the settings and changes every field', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const page = await agent.get('/dashboard/settings')
    expect(page.status).toBe(200)
    expect(page.html).toContain('value="Test business"')
    expect(page.html).toContain('Next invoice number (test mode)')
    expect(page.html).toMatch(/name="receiptsEnabled" value="true" type="checkbox" checked/)
    expect(page.html).toContain('<option value="weekly" selected>')
    expect(page.html).toContain('Live Providers can be switched on once verification is approved')
    expect(page.html).not.toContain('name="liveProviders"')
    for (const name of Object.keys(settingsForm())) expect(page.html, name).toContain(`name="${name}"`)

    // receiptsEnabled left out: an unchecked box.
    const saved = await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm())
    expect(saved.location).toBe('/dashboard/settings')
    const after = await agent.follow(saved)
    expect(after.html).toContain('Settings saved. The next test invoice number is 42.')
    expect((await api.get('/_sim/settings')).body).toEqual({
      mode: 'test',
      displayName: 'Kai Store',
      vatNumber: '50-12345-0-1',
      invoicePrefix: 'INV-2026',
      invoiceNextNumber: 42,
      receiptsEnabled: false,
      payoutSchedule: 'monthly',
      payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' },
      liveProviders: false,
    })
    expect(after.html).toContain('<option value="monthly" selected>')
    expect(after.html).toContain('BSP, Kai Store Ltd, account 12345678')
    expect(after.html).toMatch(/name="receiptsEnabled" value="true" type="checkbox" aria-describedby/)

    await agent.submit(
      '/dashboard/settings',
      '/dashboard/settings',
      settingsForm({ receiptsEnabled: 'true', destinationType: 'wallet', walletProvider: 'mycash', walletPhone: '+679 765 4321', payoutSchedule: 'manual' }),
    )
    const settings = (await api.get('/_sim/settings')).body
    expect(settings.receiptsEnabled).toBe(true)
    expect(settings.payoutSchedule).toBe('manual')
    expect(settings.payoutDestination).toEqual({ type: 'wallet', provider: 'mycash', phone: '+6797654321' })
    const wallet = await agent.get('/dashboard/settings')
    expect(wallet.html).toContain('<option value="mycash" selected>')
    expect(wallet.html).toContain('value="+6797654321"')

    await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm({ destinationType: 'none' }))
    expect((await api.get('/_sim/settings')).body.payoutDestination).toBeNull()
  })

  it('a refused form comes back with what was typed, unchecked boxes included, once (issue 14)', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    // receiptsEnabled is on for a new merchant; the form leaves the box unchecked.
    const typed = settingsForm({ invoicePrefix: 'BILL-', vatNumber: 'VAT "9"', destinationType: 'wallet', walletProvider: 'mycash', walletPhone: '555' })
    const refused = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings', typed))
    expect(errorFlashOf(refused)).toContain('Field: invoicePrefix')
    for (const expected of [
      'name="displayName" value="Kai Store"',
      'name="vatNumber" value="VAT &quot;9&quot;"',
      'name="invoicePrefix" value="BILL-"',
      'name="invoiceNextNumber" value="42"',
      '<option value="monthly" selected>',
      '<option value="wallet" selected>',
      '<option value="mycash" selected>',
      'name="walletPhone" value="555"',
      'name="accountNumber" value="1234 5678"',
    ]) {
      expect(refused.html, expected).toContain(expected)
    }
    expect(refused.html).toMatch(/name="receiptsEnabled" value="true" type="checkbox" aria-describedby/)
    // Shown once: the next visit shows the settings as they are.
    const again = await agent.get('/dashboard/settings')
    expect(again.html).toContain('name="invoicePrefix" value="INV-"')
    expect(again.html).toMatch(/name="receiptsEnabled" value="true" type="checkbox" checked/)
  })

  it('a custom clock advance the simulator refuses comes back typed in (issue 14)', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const refused = await agent.follow(await agent.submit('/dashboard', '/dashboard/clock/advance', { duration: '3 fortnights' }))
    expect(errorFlashOf(refused)).toContain('Field: duration')
    expect(refused.html).toContain('name="duration" value="3 fortnights"')
  })

  it('a bad value comes back as an error flash naming the field, and nothing changes', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const before = (await api.get('/_sim/settings')).body
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const cases: [Record<string, string>, string][] = [
      [{ invoiceNextNumber: '0' }, 'Field: invoiceNextNumber'],
      [{ invoiceNextNumber: 'ten' }, 'Field: invoiceNextNumber'],
      [{ invoicePrefix: 'BILL-' }, 'must be INV- followed by up to 8 digits'],
      [{ invoicePrefix: 'BILL-' }, 'Field: invoicePrefix'],
      [{ displayName: '   ' }, 'Field: displayName'],
      [{ payoutSchedule: 'hourly' }, 'Field: payoutSchedule'],
      [{ accountNumber: '12' }, 'Field: payoutDestination.accountNumber'],
      [{ destinationType: 'wallet', walletPhone: '555' }, 'Field: payoutDestination.phone'],
      [{ checkboxes: 'receiptsEnabled liveProviders', liveProviders: 'true' }, 'Live Providers can be switched on once verification is approved.'],
    ]
    for (const [fields, message] of cases) {
      const refused = await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm(fields))
      expect(refused.location).toBe('/dashboard/settings')
      expect(errorFlashOf(await agent.follow(refused)), JSON.stringify(fields)).toContain(message)
    }
    expect((await api.get('/_sim/settings')).body).toEqual(before)
  })
})

/** The verification form as a browser sends it: multipart, with image files. */
async function submitVerification(agent: DashboardAgent, files: Record<string, Buffer>, tin = '123-456-789'): Promise<DashboardPage> {
  const page = await agent.get('/dashboard/settings')
  const form = new FormData()
  form.set('_csrf', csrfOf(page.html))
  form.set('_back', '/dashboard/settings')
  form.set('tin', tin)
  for (const [name, bytes] of Object.entries(files)) form.set(name, new Blob([bytes], { type: 'image/png' }), `${name}.png`)
  return agent.follow(await agent.postMultipart('/dashboard/settings/verification', form))
}

describe('Verification', () => {
  it('submit with files → pending; reject with a reason; again; approve shows the live key once and the mode switch', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const page = await agent.get('/dashboard/settings')
    expect(page.html).toContain('badge-quiet">unverified')
    expect(page.html).toContain('enctype="multipart/form-data"')
    expect(page.html).toContain('name="tinCardPhoto" type="file"')
    expect(page.html).toContain('name="businessRegistration" type="file"')
    expect(page.html).not.toContain('name="personalId"')

    const missing = await submitVerification(agent, { tinCardPhoto: PNG })
    expect(errorFlashOf(missing)).toContain('businessRegistration is required for a business account')
    // The TIN comes back as typed (issue 14); the photos must be chosen again, as a browser never fills a file input.
    expect(missing.html).toContain('name="tin" value="123-456-789"')
    const notImage = await submitVerification(agent, { tinCardPhoto: Buffer.from('not an image'), businessRegistration: PNG })
    expect(errorFlashOf(notImage)).toContain('Field: tinCardPhoto')
    // Multipart keeps every value of a name; the page would have taken the last: refused as the urlencoded forms refuse it.
    const twice = new FormData()
    twice.set('_csrf', csrfOf((await agent.get('/dashboard/settings')).html))
    twice.append('tin', '123-456-789')
    twice.append('tin', '987-654-321')
    const refusedTwice = await agent.postMultipart('/dashboard/settings/verification', twice)
    expect(refusedTwice.status).toBe(400)
    expect(refusedTwice.html).toContain('Invalid `tin`: give it once, not 2 times.')

    const pending = await submitVerification(agent, { tinCardPhoto: PNG, businessRegistration: PNG })
    expect(pending.html).toContain('Verification submitted: it is pending review.')
    expect(pending.html).toContain('badge-wait">pending')
    expect(pending.html).toContain('******789')
    expect(pending.html).toContain('TIN card photo')
    expect(pending.html).toContain(`${PNG.length} bytes`)
    expect(pending.html).not.toContain('123-456-789')
    expect((await api.get('/_sim/verification')).body.verification.status).toBe('pending')

    const noReason = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings/verification/reject', { reason: ' ' }))
    expect(errorFlashOf(noReason)).toContain('Field: reason')
    const tooLong = await agent.follow(
      await agent.submit('/dashboard/settings', '/dashboard/settings/verification/reject', { reason: `Blurry <photo> ${'x'.repeat(500)}` }),
    )
    expect(errorFlashOf(tooLong)).toContain('Field: reason')
    expect(tooLong.html).toContain(`aria-describedby="verification-reason-hint">Blurry &lt;photo&gt; ${'x'.repeat(500)}</textarea>`)
    const rejected = await agent.follow(
      await agent.submit('/dashboard/settings', '/dashboard/settings/verification/reject', { reason: 'TIN photo is <blurry>' }),
    )
    expect(rejected.html).toContain('badge-bad">rejected')
    expect(rejected.html).toContain('TIN photo is &lt;blurry&gt;')
    expect((await api.get('/_sim/verification')).body.verification).toMatchObject({ status: 'rejected', rejectionReason: 'TIN photo is <blurry>' })

    await submitVerification(agent, { tinCardPhoto: PNG, businessRegistration: PNG })
    const approved = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings/verification/approve'))
    const liveSecret = secretOf(approved)
    expect(liveSecret).toMatch(/^sk_live_/)
    const publishable = /Your first live publishable key: (pk_live_[0-9A-Za-z]+)/.exec(approved.html)?.[1]
    expect(publishable).toBeDefined()
    expect(approved.html).toContain('Switch to live data')
    expect(approved.html).toContain('badge-ok">approved')
    const me = await client(base, liveSecret).get('/v1/merchants/me')
    expect(me.status).toBe(200)
    expect(me.body.mode).toBe('live')

    const later = await agent.get('/dashboard/settings')
    expect(later.html).not.toContain(liveSecret)
    expect(later.html).not.toContain(publishable)
    expect(later.html).toContain('Live mode is unlocked')
    expect(later.html).toMatch(/name="liveProviders" value="true" type="checkbox" checked/)
    // Live providers move live money: in test mode the form is refused, in live mode (this session approved) it works.
    const refused = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm({ checkboxes: 'receiptsEnabled liveProviders' })))
    expect(refused.html).toContain('needs a live secret key')
    expect((await api.get('/_sim/settings')).body.liveProviders).toBe(true)
    await agent.submit('/dashboard/settings', '/dashboard/mode', { mode: 'live' })
    await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm({ checkboxes: 'receiptsEnabled liveProviders' }))
    expect((await api.get('/_sim/settings')).body.liveProviders).toBe(false)
    await agent.submit('/dashboard/settings', '/dashboard/settings', settingsForm({ checkboxes: 'receiptsEnabled liveProviders', liveProviders: 'true' }))
    expect((await api.get('/_sim/settings')).body.liveProviders).toBe(true)
  })

  it('a session signed in with the test key, once live keys exist, is refused verification as the API refuses it: 403 for submit and reject, 409 for approve', async () => {
    const { keys } = await signupMerchant(base)
    await unlockLive(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const submitted = await submitVerification(agent, { tinCardPhoto: PNG, businessRegistration: PNG })
    expect(errorFlashOf(submitted)).toContain('Verification needs a live secret key')
    const rejected = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings/verification/reject', { reason: 'Blurry photo' }))
    expect(errorFlashOf(rejected)).toContain('Verification needs a live secret key')
    const approved = await agent.follow(await agent.submit('/dashboard/settings', '/dashboard/settings/verification/approve'))
    expect(errorFlashOf(approved)).toContain('Only pending verification can be reviewed; it is approved.')
    expect((await client(base, keys.secret).get('/_sim/verification')).body.verification.status).toBe('approved')
  })

  it('an individual account is asked for a personal ID', async () => {
    const { keys } = await signupMerchant(base, 'individual')
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const page = await agent.get('/dashboard/settings')
    expect(page.html).toContain('name="personalId" type="file"')
    expect(page.html).not.toContain('name="businessRegistration"')
    const pending = await submitVerification(agent, { tinCardPhoto: PNG, personalId: PNG })
    expect(pending.html).toContain('Personal ID')
    expect((await client(base, keys.secret).get('/_sim/verification')).body.verification.status).toBe('pending')
  })
})

/** A live merchant whose customer paid with an e-mail address: one receipt in the live outbox. */
async function liveReceipt(displayName?: string) {
  const { keys } = await signupMerchant(base)
  if (displayName) await client(base, keys.secret).patch('/_sim/settings', { displayName })
  const live = await unlockLive(base, keys.secret)
  const liveApi = client(base, live.secret)
  const session = await liveApi.post('/v1/checkout-sessions', { amount: 2550, currency: 'FJD', customerEmail: 'mere@example.test' }, idempotent())
  expect(session.status).toBe(201)
  expect((await liveApi.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)
  const email = (await liveApi.get('/_sim/emails')).body.data[0]
  return { keys, live, email, sessionId: session.body.id as string }
}

describe('Outbox', () => {
  it('lists a live receipt and shows it as the customer would, in a sandboxed frame that needs the session', async () => {
    const { keys, live, email, sessionId } = await liveReceipt()
    const agent = await DashboardAgent.signIn(base, live.secret)
    const list = await agent.get('/dashboard/outbox')
    expect(list.status).toBe(200)
    expect(list.html).toContain('mere@example.test')
    expect(list.html).toContain(`<a href="/dashboard/outbox/${email.id}">Your receipt from Test business</a>`)
    expect(list.html).toContain('Receipt')

    const detail = await agent.get(`/dashboard/outbox/${email.id}`)
    expect(detail.status).toBe(200)
    expect(detail.html).toContain(`<iframe class="email-preview" sandbox src="/dashboard/outbox/${email.id}/html"`)
    expect(detail.html).toContain('<pre class="email-text">Receipt from Test business')
    expect(detail.html).toContain(`Reference: ${sessionId}`)
    expect(detail.html).toContain(`href="/dashboard/sessions/${sessionId}"`)

    const frame = await agent.get(`/dashboard/outbox/${email.id}/html`)
    expect(frame.status).toBe(200)
    expect(frame.html).toBe(email.html)
    expect(frame.headers.get('content-type')).toMatch(/^text\/html/)
    expect(frame.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'self'")
    expect(frame.headers.get('x-frame-options')).toBe('SAMEORIGIN')

    const anonymous = new DashboardAgent(base)
    for (const path of [`/dashboard/outbox/${email.id}/html`, `/dashboard/outbox/${email.id}`, '/dashboard/outbox']) {
      const refused = await anonymous.get(path)
      expect(refused.status, path).toBe(303)
      expect(refused.location, path).toBe('/dashboard/sign-in')
    }

    // The same merchant's test data has no live e-mails; another merchant has none of these.
    const testAgent = await DashboardAgent.signIn(base, keys.secret)
    expect((await testAgent.get('/dashboard/outbox')).html).toContain('No e-mails in test mode yet.')
    const other = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    for (const viewer of [testAgent, other]) {
      for (const path of [`/dashboard/outbox/${email.id}`, `/dashboard/outbox/${email.id}/html`]) {
        const missing = await viewer.get(path)
        expect(missing.status, path).toBe(404)
        expect(missing.html, path).not.toContain('mere@example.test')
      }
    }
  })

  it('lists an e-mailed invoice with its attachment', async () => {
    const { api, key, invoice } = await sentInvoice(base)
    expect((await api.post(`/_sim/invoices/${invoice.id}/email`)).status).toBe(200)
    const agent = await DashboardAgent.signIn(base, key)
    const list = await agent.get('/dashboard/outbox')
    const subject = `Invoice ${invoice.number} from Kava Kitchen Ltd`
    expect(list.html).toContain(subject)
    const id = /href="\/dashboard\/outbox\/([^"]+)"/.exec(list.html)![1]!
    const detail = await agent.get(`/dashboard/outbox/${id}`)
    expect(detail.html).toContain(`${invoice.number}.pdf`)
    expect(detail.html).toContain('application/pdf')
    expect(detail.html).toContain(`href="/dashboard/invoices/${invoice.id}"`)
  })
})

describe('escaping', () => {
  it('a display name with <script> comes out escaped on these pages and in the e-mail', async () => {
    const { live, email } = await liveReceipt(SCRIPT_NAME)
    const agent = await DashboardAgent.signIn(base, live.secret)
    for (const path of ['/dashboard/developers', '/dashboard/settings', '/dashboard/outbox', `/dashboard/outbox/${email.id}`, `/dashboard/outbox/${email.id}/html`]) {
      const page = await agent.get(path)
      expect(page.status, path).toBe(200)
      expect(page.html, path).not.toContain('<script>alert(1)')
      expect(page.html, path).toContain(ESCAPED_NAME)
    }
  })
})
