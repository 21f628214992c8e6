import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { BulaClient } from '../../src/client/bula-client.js'
import { runFixtureFiles } from '../../src/fixtures/runner.js'
import { packageRoot } from '../../src/package-root.js'
import { signupMerchant, startTestServer } from '../helpers/http.js'

const EXAMPLES = path.join(packageRoot(), 'templates', 'fixtures', 'examples')

let server: RunningServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe('the example fixtures docs/fixtures.md shows', () => {
  it('run green on a fresh business merchant, with what each one shows', async () => {
    const files = (await readdir(EXAMPLES)).sort().map((file) => path.join(EXAMPLES, file))
    expect(files.map((file) => path.basename(file))).toEqual(['checkout.json', 'idempotency.json', 'invoice.json', 'lost-answer.json'])
    const { keys } = await signupMerchant(server.baseUrl)
    const client = new BulaClient({ baseUrl: server.baseUrl, apiKey: keys.secret })
    const [checkout, idempotency, invoice, lostAnswer] = await runFixtureFiles(files, { client, env: { ORDER_ID: '1234' } })

    expect(checkout!.results.session).toMatchObject({ amount: 4550, metadata: { order_id: '1234', attempt: '2' } })
    expect(checkout!.results.balance).toMatchObject({ balance: 4550 })
    expect(idempotency!.results.retried).toEqual(idempotency!.results.created)
    expect(invoice!.results.paid).toMatchObject({ status: 'paid', total: 28688, number: expect.stringMatching(/^INV-\d{4}$/) })
    expect(lostAnswer!.results.fault).toMatchObject({ route: 'POST /v1/checkout-sessions', action: 'lose_response' })
    expect(lostAnswer!.results.fetched).toEqual(lostAnswer!.results.session)
    const lost = (await client.listAllCheckoutSessions()).data.filter((session) => session.metadata.order_id === 'lost-answer-1234')
    expect(lost).toHaveLength(1)
    expect((await client.listFaults()).data).toEqual([])
  })

  it('are where the command of docs/fixtures.md looks for them in a project that installed the package', async () => {
    const docs = await readFile(path.join(packageRoot(), 'docs', 'fixtures.md'), 'utf8')
    const { name } = JSON.parse(await readFile(path.join(packageRoot(), 'package.json'), 'utf8')) as { name: string }
    const command = /^ORDER_ID=1234 (.*) fixtures run (\S+)\/\*\.json$/m.exec(docs)
    expect(command, 'the examples command of docs/fixtures.md').not.toBeNull()
    // The project's own `bula` (npx, as every example runs it), in node_modules/<this package's name>.
    expect(command![1]).toBe('npx bula')
    expect(command![2]).toBe(path.posix.join('node_modules', name, 'templates', 'fixtures', 'examples'))
  })
})
