import { execa } from 'execa'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { cliConfigDir, parseJsonOutput, removeCliConfigDir, runCli } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

/**
 * A stand-in simulator that answers a session, an invoice and a dashboard
 * sign-in link with whatever page URL the test sets: `open`, `invoices open`
 * and `dashboard` must hand the system opener only a link of the simulator
 * that answered.
 */
let server: Server
let baseUrl: string
let pageUrl: string

beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(request.url === '/v1/merchants/me' ? 404 : 200, { 'content-type': 'application/json' })
    if (request.url?.startsWith('/v1/checkout-sessions/')) response.end(JSON.stringify({ id: 'cs_1', hostedUrl: pageUrl }))
    else if (request.url?.startsWith('/v1/invoices/')) response.end(JSON.stringify({ id: 12, status: 'open', url: pageUrl }))
    else response.end(JSON.stringify({ url: pageUrl, expiresAt: 0 }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  removeCliConfigDir()
})

beforeEach(() => {
  pageUrl = `${baseUrl}/pay/cs_1`
})

const env = () => ({ BULA_BASE_URL: baseUrl, BULA_API_KEY: 'sk_test_abc' })

const COMMANDS = [
  { args: ['sessions', 'open', 'cs_1'], field: 'hostedUrl' },
  { args: ['invoices', 'open', '12'], field: 'url' },
  { args: ['dashboard'], field: 'url' },
]

describe('opening a page URL the simulator answered', () => {
  it('prints a link of the simulator that answered, also by another loopback name', async () => {
    const result = await runCli(['sessions', 'open', 'cs_1', '--print'], { env: env() })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(pageUrl)
    // A simulator bound to 127.0.0.1 builds its links from that address, while the CLI may reach it as localhost.
    const byName = await runCli(['dashboard', '--print'], { env: { ...env(), BULA_BASE_URL: baseUrl.replace('127.0.0.1', 'localhost') } })
    expect(byName.exitCode, byName.stderr).toBe(0)
    expect(byName.stdout).toBe(pageUrl)
  })

  it('refuses a file URL in every command, --print included, naming the URL and printing nothing on stdout', async () => {
    pageUrl = 'file:///etc/passwd'
    for (const { args, field } of COMMANDS) {
      const result = await runCli([...args, '--print'], { env: env() })
      expect(result.exitCode, `${args.join(' ')}: ${result.stdout}`).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`unexpected_response: The simulator at ${baseUrl} answered a ${field} that bula does not open: "file:///etc/passwd"`)
    }
  })

  it.each([
    ['a share', 'smb://attacker.example/share'],
    ['another host', 'http://attacker.example/pay/cs_1'],
    ['a space', 'PAGE/pay/a b'],
  ])('refuses %s (%s)', async (_, url) => {
    pageUrl = url.replace('PAGE', baseUrl)
    const result = await runCli(['sessions', 'open', 'cs_1', '--print'], { env: env() })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`answered a hostedUrl that bula does not open: ${JSON.stringify(pageUrl)}`)
  })

  it('escapes control characters in the URL it names', async () => {
    pageUrl = `${baseUrl}/pay/\u001b]8;;http://attacker.example\u0007x\u009b31m`
    const result = await runCli(['sessions', 'open', 'cs_1', '--json', '--print'], { env: env() })
    // --json prints the session as the API answered it and opens nothing, as `sessions get --json` would.
    expect(result.exitCode, result.stderr).toBe(0)
    const human = await runCli(['sessions', 'open', 'cs_1', '--print'], { env: env() })
    expect(human.exitCode).toBe(1)
    expect(human.stderr.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u)
    expect(human.stderr).toContain(String.raw`/pay/\u001b]8;;http://attacker.example\u0007x\u009b31m`)
    const dashboard = await runCli(['dashboard', '--json'], { env: env() })
    expect(parseJsonOutput(dashboard)).toMatchObject({ url: pageUrl })
  })

  const hasScript = spawnSync('script', ['--version']).status === 0

  // On a terminal `open` runs xdg-open, which (with no display) starts $BROWSER: a script that writes down what it was given.
  it.runIf(hasScript && process.platform === 'linux')('on a terminal, starts no opener for a refused URL, and the browser for a good one', async () => {
    const dir = await tempFolder('bula-open-')
    const browser = path.join(dir, 'browser.sh')
    const opened = path.join(dir, 'opened.txt')
    writeFileSync(opened, '')
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> ${opened}\n`, { mode: 0o755 })
    const onTerminal = (args: string[]) =>
      execa('script', ['-qec', `node ${BIN} ${args.join(' ')}`, '/dev/null'], {
        env: { ...env(), BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1', BROWSER: browser, DISPLAY: '' },
        reject: false,
      })
    const refused = ['file:///etc/passwd', 'smb://attacker.example/share', `${baseUrl}/pay/a b`]
    for (const [index, { args }] of COMMANDS.entries()) {
      pageUrl = refused[index]!
      const result = await onTerminal(args)
      expect(result.exitCode, result.stdout).toBe(1)
      expect(result.stdout).toContain('unexpected_response')
    }
    expect(readFileSync(opened, 'utf8')).toBe('')
    pageUrl = `${baseUrl}/pay/cs_1`
    const good = await onTerminal(['sessions', 'open', 'cs_1'])
    expect(good.exitCode, good.stdout).toBe(0)
    expect(good.stdout).toContain(`Opened ${pageUrl} in the browser.`)
    await expect.poll(() => readFileSync(opened, 'utf8')).toBe(`${pageUrl}\n`)
  })
})
