import { beforeAll, describe, expect, it } from 'vitest'
import { DashboardAgent, type DashboardPage } from '../helpers/dashboard.js'
import { client, signupMerchant, unlockLive, useTestServer } from '../helpers/http.js'

// The dashboard's API faults and Doctor pages (docs/dashboard.md): what
// `/_sim/faults` and `bula doctor` give, for the mode on show, in a browser.

const server = useTestServer()
let base: string
beforeAll(() => {
  base = server().baseUrl
})

const errorFlashOf = (page: DashboardPage): string => /<div class="flash flash-error"[\s\S]*?<\/div>/.exec(page.html)?.[0] ?? ''
const okFlashOf = (page: DashboardPage): string => /<div class="flash flash-ok"[\s\S]*?<\/div>/.exec(page.html)?.[0] ?? ''

async function signedIn() {
  const { keys } = await signupMerchant(base)
  return { keys, api: client(base, keys.secret), agent: await DashboardAgent.signIn(base, keys.secret) }
}

describe('API faults page', () => {
  it('adds a fault from the form, shows it, the requests it struck, and removes it', async () => {
    const { api, agent } = await signedIn()
    const added = await agent.submit('/dashboard/faults', '/dashboard/faults', { route: 'get /v1/merchants/me', action: 'error', status: '502', delayMs: '2000', times: '2' })
    expect(added.status).toBe(303)
    expect(okFlashOf(await agent.follow(added))).toMatch(/Added fault flt_\w+: error 502 on GET \/v1\/merchants\/me, for the next 2 matching requests\./)
    const [fault] = (await api.get('/_sim/faults')).body.data
    expect(fault).toMatchObject({ route: 'GET /v1/merchants/me', action: 'error', status: 502, delayMs: null, times: 2 })

    // A request it strikes, its path shown as text.
    expect((await api.get('/v1/merchants/me?a=1&b=2')).status).toBe(502)
    const page = await agent.get('/dashboard/faults')
    expect(page.html).toContain('1 of 2')
    expect(page.html).toContain(`error ${fault.id}`)
    expect(page.html).toContain('GET /v1/merchants/me?a=1&amp;b=2')

    const removed = await agent.submit('/dashboard/faults', `/dashboard/faults/${fault.id}/delete`)
    expect(okFlashOf(await agent.follow(removed))).toContain(`Removed fault ${fault.id}.`)
    expect((await api.get('/_sim/faults')).body.data).toEqual([])
    expect((await api.get('/v1/merchants/me')).status).toBe(200)
  })

  it('refuses a route the API does not have, and another merchant\'s fault, as error flashes', async () => {
    const { agent } = await signedIn()
    const other = await signedIn()
    const refused = await agent.follow(await agent.submit('/dashboard/faults', '/dashboard/faults', { route: 'GET /v1/invoices/7', action: 'reset', times: '1' }))
    expect(errorFlashOf(refused)).toContain('Field: route')
    expect(errorFlashOf(refused)).toContain('GET /v1/invoices/{id}')
    const delay = await agent.follow(await agent.submit('/dashboard/faults', '/dashboard/faults', { route: '', action: 'delay', delayMs: '70000', times: '1' }))
    expect(errorFlashOf(delay)).toContain('Field: delayMs')

    const theirs = (await other.api.post('/_sim/faults', { route: '*', action: 'reset' })).body.fault
    const missing = await agent.follow(await agent.submit('/dashboard/faults', `/dashboard/faults/${theirs.id}/delete`))
    expect(errorFlashOf(missing)).toContain('No such fault')
    expect((await other.api.get('/_sim/faults')).body.data).toHaveLength(1)
  })

  it('clears every fault of the mode', async () => {
    const { api, agent } = await signedIn()
    await api.post('/_sim/faults', { route: '*', action: 'reset' })
    await api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'lose_response' })
    const cleared = await agent.follow(await agent.submit('/dashboard/faults', '/dashboard/faults/clear'))
    expect(okFlashOf(cleared)).toContain('Removed 2 faults.')
    expect(cleared.html).toContain('No API faults in force in test mode.')
  })
})

describe('Doctor page', () => {
  it('shows each finding with its rule, evidence and fix, in the window chosen', async () => {
    const { api, agent } = await signedIn()
    for (const key of ['attempt-1', 'attempt-2']) await api.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, { headers: { 'idempotency-key': key } })
    const page = await agent.get('/dashboard/doctor')
    expect(page.status).toBe(200)
    expect(page.html).toContain('1 create retried with a new Idempotency-Key: 1 duplicate Checkout Session made')
    expect(page.html).toContain('[create-retried-with-new-key]')
    expect(page.html).toContain('with key attempt-1: 201')
    expect(page.html).toMatch(/data-testid="doctor-summary">2 errors, 2 warnings from \d+ requests of your integration/)
    expect(page.html).toContain('aria-current="page"')

    await api.post('/_sim/clock/advance', { ms: 2 * 60 * 60 * 1000 })
    const recent = await agent.get('/dashboard/doctor?since=1h')
    expect(recent.html).not.toContain('[create-retried-with-new-key]')
    expect(recent.html).toContain('<option value="1h" selected>')
  })

  it('says how many of the bula CLI\'s own calls it left out, as bula doctor does', async () => {
    const { api, agent } = await signedIn()
    await api.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, { headers: { 'idempotency-key': 'mine' } })
    for (const key of ['cli-1', 'cli-2']) {
      await api.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, { headers: { 'idempotency-key': key, 'user-agent': 'bula-tools/0.1.0 linux-x64 node-v24.21.0' } })
    }
    const summary = /data-testid="doctor-summary">([^<]*)/.exec((await agent.get('/dashboard/doctor')).html)?.[1]
    expect(summary).toMatch(/ from \d+ requests of your integration \(2 from the bula CLI left out\), /)
  })

  it('says so when there is nothing to find', async () => {
    const { keys, agent } = await signedIn()
    expect((await agent.get('/dashboard/doctor')).html).toContain('[live-verification]')
    const live = await unlockLive(base, keys.secret)
    await client(base, live.secret).patch('/_sim/settings', { payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' } })
    const page = await agent.get('/dashboard/doctor?since=15m')
    expect(page.html).toContain('No findings')
    expect(page.html).toMatch(/data-testid="doctor-summary">0 errors, 0 warnings/)
  })
})
