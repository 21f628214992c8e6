import { describe, expect, it } from 'vitest'
import { runCli, signupMerchant, useServe } from '../helpers/cli.js'
import { freePort } from '../helpers/ports.js'

// A user who followed the docs runs `npx bula`, and has no `bula` on PATH: a hint must name the command as they
// started it. npm sets npm_command=exec for npx and `npm exec`.
const server = useServe()

const launches = [
  { as: 'bula', env: {} },
  { as: 'npx bula', env: { npm_command: 'exec' } },
] as const

describe.each(launches)('hints when started as `$as`', ({ as, env }) => {
  it('in the CLI\'s own notices and usage errors', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const added = await runCli(['faults', 'add', 'POST /v1/checkout-sessions', '--action', 'lose_response'], { env: { ...merchant.env, ...env } })
    expect(added.stdout).toMatch(new RegExp(`Remove it with \`${as} faults remove flt_\\w+\`, or all with \`${as} faults clear\`\\.`))
    const noSecret = await runCli(['webhooks', 'check', 'http://127.0.0.1:9/webhooks', '--json'], { env })
    expect(noSecret.stdout).toContain(`printed by \`${as} listen --print-secret\` (for \`${as} listen\`)`)
  })

  it('in the messages of the simulator and of the client library that the CLI passes on', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const invoice = await merchant.api.createInvoice()
    await merchant.api.post(`/v1/invoices/${invoice.id}/send`, undefined, { headers: { 'idempotency-key': `send-${invoice.id}` } })
    const email = await runCli(['invoices', 'email', String(invoice.id)], { env: { ...merchant.env, ...env } })
    expect(email.stderr).toContain(`(\`${as} invoices create --email\`)`)

    // Doctor's findings come from the simulator: a session created by the integration (not the CLI), no endpoint.
    await merchant.api.createSession()
    const doctor = await runCli(['doctor'], { env: { ...merchant.env, ...env } })
    expect(doctor.stdout).toContain(`Fix: Register your receiver: \`${as} webhooks create --url https://…/webhooks\` (\`${as} init receiver\` writes a sample)`)

    const port = await freePort()
    const unreachable = await runCli(['balance'], { env: { ...merchant.env, BULA_BASE_URL: `http://127.0.0.1:${port}`, ...env } })
    expect(unreachable.stderr).toContain(`Start it with \`${as} serve --port ${port}\`.`)
  })
})
