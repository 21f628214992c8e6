import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MAX_ANSWER_BYTES } from '../../src/client/bula-client.js'
import { runConformance } from '../../src/conformance/index.js'
import { answerForever } from '../helpers/endless-answer.js'

/** A stand-in target on loopback answering with `handle`, closed when the test finishes; `seen` lists `host path` of each request. */
async function standIn(handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: string[] = []
  const server = createServer((request, response) => {
    seen.push(`${request.headers.host} ${request.url}`)
    handle(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

// Every exchange gives up after timeoutMs (the client's 60 s unless told), so that a target that never answers ends the run.
describe('bula conformance against a target that does not answer, or redirects', { timeout: 15_000 }, () => {
  it('gives up on a target that accepts and never answers, as a timeout', async () => {
    const target = await standIn(() => {})
    await expect(runConformance({ baseUrl: target.baseUrl, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'timeout',
      message: `GET ${target.baseUrl}/_sim/health got no answer within 0.2 s.`,
    })
  })

  it('fails a case whose request gets no answer, and goes on', async () => {
    const target = await standIn((request, response) => {
      if (request.url === '/_sim/health') return json(response, 404, { error: { code: 'not_found', message: 'No such route.' } })
      if (request.url === '/v1/merchants/me') return json(response, 200, { tier: 'business' })
      if (request.url === '/api-keys' || request.url === '/webhook-endpoints') return json(response, 200, { data: [] })
      // Everything else hangs.
    })
    const result = await runConformance({ baseUrl: target.baseUrl, apiKey: `sk_test_${'0'.repeat(32)}`, only: ['errors/envelope', 'checkout-sessions/create'], timeoutMs: 200 })
    const outcomes = Object.fromEntries(result.cases.map((item) => [item.id, [item.outcome, item.reason]]))
    expect(outcomes).toEqual({
      'checkout-sessions/create': ['fail', expect.stringMatching(/POST http:\S+\/v1\/checkout-sessions got no answer within 0\.2 s\./)],
      'errors/envelope': ['fail', expect.stringContaining('got no answer within 0.2 s.')],
    })
  })

  it('refuses a health probe that redirects, without following it to the other host', async () => {
    const other = await standIn((_, response) => json(response, 200, { status: 'ok', version: 'x' }))
    const target = await standIn((request, response) => {
      response.writeHead(302, { location: `${other.baseUrl.replace('127.0.0.1', 'localhost')}${request.url}` })
      response.end()
    })
    await expect(runConformance({ baseUrl: target.baseUrl, timeoutMs: 2_000 })).rejects.toMatchObject({
      code: 'conformance_setup',
      message: `GET ${target.baseUrl}/_sim/health answered 302, a redirect to "${other.baseUrl.replace('127.0.0.1', 'localhost')}/_sim/health": the suite follows no redirect, so give the base URL that answers itself.`,
    })
    expect(other.seen).toEqual([])
  })

  it('stops reading an answer once it passes the client\'s limit', async () => {
    let streamed = (): number => 0
    const target = await standIn((_, response) => void (streamed = answerForever(response)))
    await expect(runConformance({ baseUrl: target.baseUrl, timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'unexpected_response',
      message: `GET ${target.baseUrl}/_sim/health answered HTTP 200 with more than 64 MiB, the most bula reads of one answer.`,
    })
    expect(streamed()).toBeLessThan(MAX_ANSWER_BYTES + 32 * 1024 * 1024)
  })
})
