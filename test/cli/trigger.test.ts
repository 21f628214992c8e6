import { describe, expect, it } from 'vitest'
import { checkoutSessionSchema, eventListSchema, type Event } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe } from '../helpers/cli.js'

const server = useServe()

interface TriggerOutput {
  event: string
  steps: Array<{ name: string | null; method: string; path: string; response: Record<string, unknown> }>
  events: Event[]
}

const TRIGGERS = [
  ['checkout_session.succeeded', ['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'], 'succeeded'],
  ['checkout_session.failed', ['payment.processing', 'payment.failed', 'checkout_session.failed'], 'failed'],
  ['checkout_session.cancelled', ['checkout_session.cancelled'], 'cancelled'],
  ['payment.processing', ['payment.processing'], 'pending'],
  ['payment.succeeded', ['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'], 'succeeded'],
  ['payment.failed', ['payment.processing', 'payment.failed', 'checkout_session.failed'], 'failed'],
] as const

describe('bula trigger', () => {
  it.each(TRIGGERS)('%s creates real objects whose events are logged like any other', async (type, expectedTypes, sessionStatus) => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(['trigger', type, '--json'], { env: merchant.env })
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const output = parseJsonOutput<TriggerOutput>(result)
    expect(output.event).toBe(type)
    expect(output.events.map((event) => event.type)).toEqual(expectedTypes)

    // The state the trigger left is read over HTTP (a CLI start costs ~0.35 s
    // of CPU), but with `bula sessions get` in the first case, so that this
    // file still runs the command (the next test runs `bula events list`).
    const throughCli = type === TRIGGERS[0][0]

    // The session really exists, in the state the event reports.
    const sessionId = String(output.steps[0]!.response.id)
    const session = checkoutSessionSchema.parse(
      throughCli ? parseJsonOutput(await runCli(['sessions', 'get', sessionId, '--json'], { env: merchant.env })) : await succeed(merchant.api.get(`/v1/checkout-sessions/${sessionId}`)),
    )
    expect(session.status).toBe(sessionStatus)
    const triggered = output.events.find((event) => event.type === type)!
    const about = triggered.data.object
    expect(about.id === sessionId || about.checkoutSessionId === sessionId).toBe(true)

    // The event log holds exactly these events.
    const log = eventListSchema.parse(await succeed(merchant.api.get('/_sim/events')))
    expect(log.data.map((event) => event.event_id).reverse()).toEqual(output.events.map((event) => event.event_id))
  })

  it('prints the requests, the objects created and the events produced', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(['trigger', 'checkout_session.succeeded'], { env: merchant.env })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^Triggered checkout_session\.succeeded\.$/m)
    expect(result.stdout).toMatch(/^STEP\s+REQUEST\s+RESULT$/m)
    const sessionId = /^session\s+POST \/v1\/checkout-sessions\s+(cs_\S+) \(pending\)$/m.exec(result.stdout)?.[1]
    expect(sessionId).toBeDefined()
    expect(result.stdout).toMatch(
      new RegExp(`^payment\\s+POST /_sim/checkout-sessions/${sessionId}/pay\\s+checkoutSession ${sessionId} \\(succeeded\\), paymentIntent pi_\\S+ \\(succeeded\\)$`, 'm'),
    )
    const log = eventListSchema.parse(parseJsonOutput(await runCli(['events', 'list', '--json'], { env: merchant.env })))
    for (const event of log.data) expect(result.stdout).toMatch(new RegExp(`^${event.event_id}\\s+${event.type.replace('.', '\\.')}\\s`, 'm'))
  })

  it('lists the events it can trigger', async () => {
    const human = await runCli(['trigger', '--list'])
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout.split('\n')[0]).toMatch(/^EVENT\s+WHAT IT DOES$/)
    for (const [type] of TRIGGERS) expect(human.stdout).toMatch(new RegExp(`^${type.replace('.', '\\.')}\\s+An FJ\\$15\\.00 Checkout Session`, 'm'))
    // One money format for people (issue 14): FJ$15.00, never "FJD 15.00".
    expect(human.stdout).not.toMatch(/FJD \d/)

    const json = parseJsonOutput<{ data: Array<{ event: string; description: string }> }>(await runCli(['trigger', '--list', '--json']))
    expect(json.data.map((recipe) => recipe.event)).toEqual(TRIGGERS.map(([type]) => type).sort())
  })

  it('refuses an unknown event, listing the choices, before calling the simulator', async () => {
    // Nothing listens on port 9: any request would fail with connection_failed (exit 1).
    const env = { BULA_BASE_URL: 'http://127.0.0.1:9', BULA_API_KEY: 'sk_test_none' }
    const unknown = await runCli(['trigger', 'checkout_session.paid'], { env })
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr.replace(/\s*›\s*/g, ' ')).toContain(
      'Cannot trigger "checkout_session.paid": choose one of checkout_session.cancelled, checkout_session.failed, checkout_session.succeeded, payment.failed, payment.processing, payment.succeeded.',
    )
    const typo = await runCli(['trigger', 'checkout_session.succeded'], { env })
    expect(typo.exitCode).toBe(2)
    expect(typo.stderr.replace(/\s*›\s*/g, ' ')).toContain('Cannot trigger "checkout_session.succeded": did you mean checkout_session.succeeded? Otherwise choose one of checkout_session.cancelled, ')
    const none = await runCli(['trigger', '--json'], { env })
    expect(none.exitCode).toBe(2)
    expect(parseJsonOutput(none)).toMatchObject({ error: { code: 'invalid_usage', message: expect.stringContaining('Name an event to trigger') } })
  })
})
