import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeCliConfigDir, runCli } from '../helpers/cli.js'
import { requestWithHost } from '../helpers/host-request.js'
import { startServe, type ServeProcess } from '../helpers/serve-process.js'

// `bula serve --allowed-host`: the Host check against DNS rebinding (docs/security.md) lets the named host through.

let serve: ServeProcess

beforeAll(async () => {
  serve = await startServe({ memory: true, args: ['--allowed-host', 'app', '--allowed-host', 'Api.Test'] })
})
afterAll(async () => {
  await serve.stop()
  removeCliConfigDir()
})

describe('bula serve --allowed-host', () => {
  it('answers the named hosts, with any port, and refuses other names', async () => {
    for (const host of ['app:3000', 'api.test', 'localhost']) {
      expect((await requestWithHost(serve.baseUrl, host, { path: '/_sim/health' })).status, host).toBe(200)
    }
    const refused = await requestWithHost(serve.baseUrl, 'evil.example', { path: '/_sim/health' })
    expect(refused.status).toBe(403)
    expect(refused.json.error.message).toContain('--allowed-host evil.example')
  })

  it('is listed in bula serve --help and bula exec --help', async () => {
    for (const command of ['serve', 'exec']) {
      const help = await runCli([command, '--help'])
      expect(help.stdout, command).toContain('--allowed-host=<name>')
    }
  })
})
