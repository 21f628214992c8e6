import { execa } from 'execa'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { dashboardLoginLinkSchema } from '../../src/schemas/index.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, useServe } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'

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

  const hasScript = spawnSync('script', ['--version']).status === 0

  // On a terminal, through the opener `open` runs (xdg-open on Linux), which starts $BROWSER.
  it.runIf(hasScript && process.platform === 'linux')('on a terminal, says it opened the browser only when the opener did; else warns and prints the link', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const onTerminal = (browser: string) =>
      execa('script', ['-qec', `node ${BIN} dashboard`, '/dev/null'], {
        env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1', BROWSER: browser, DISPLAY: '' },
        reject: false,
      })
    const opened = await onTerminal('true')
    expect(opened.exitCode).toBe(0)
    expect(opened.stdout).toMatch(/^Opened http:\/\/\S+\/dashboard\/login\/\S+ in the browser\./m)
    const failed = await onTerminal('false')
    expect(failed.exitCode).toBe(0)
    expect(failed.stdout).not.toContain('Opened')
    expect(failed.stdout).toMatch(/Could not start a browser \(xdg-open exited with \d+\)/)
    expect(failed.stdout).toMatch(/^http:\/\/\S+\/dashboard\/login\/\S+$/m)
  })
})
