import { describe, expect, it } from 'vitest'
import { dashboardLoginLinkSchema } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, useServe } from '../helpers/cli.js'

const server = useServe()

describe('bula dashboard', () => {
  it('prints a one-time sign-in link when stdout is not a terminal; the link signs in once', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(['dashboard'], { env: merchant.env })
    expect(result.exitCode, result.stderr).toBe(0)
    const url = result.stdout.trim()
    expect(url).toMatch(new RegExp(`^${server().baseUrl}/dashboard/login/[A-Za-z0-9_-]{43}$`))
    expect(url).not.toContain(merchant.secret)

    const first = await fetch(url, { redirect: 'manual' })
    expect(first.status).toBe(303)
    const cookie = first.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard='))!.split(';')[0]!
    const overview = await fetch(`${server().baseUrl}/dashboard`, { headers: { cookie } })
    expect(await overview.text()).toContain('Overview')
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401)
  })

  it('--json prints the link and its expiry and opens nothing', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(['dashboard', '--json'], { env: merchant.env })
    expect(result.exitCode, result.stderr).toBe(0)
    const link = dashboardLoginLinkSchema.parse(parseJsonOutput(result))
    expect(link.expiresAt - Date.now()).toBeGreaterThan(4 * 60_000)
    expect(link.expiresAt - Date.now()).toBeLessThanOrEqual(5 * 60_000)
  })

  it('refuses a publishable key with the server\'s error', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(['dashboard', '--json'], { env: { ...merchant.env, BULA_API_KEY: merchant.publishable } })
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'publishable_key_forbidden' } })
  })
})
