import { existsSync, mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Debian's Chromium: the suite never downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/**
 * A newcomer without Chromium gets a passing `npm test` and a message; CI
 * (CI=true) always runs the browser tests, so a missing browser fails there.
 */
export const skipBrowserTests = !existsSync(CHROMIUM_PATH) && process.env.CI !== 'true'

if (skipBrowserTests) {
  console.warn(`Browser tests skipped: ${CHROMIUM_PATH} not found. Install it with: sudo apt-get install -y chromium`)
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export const SCREENSHOT_DIR = path.join('test-artifacts', 'screenshots')

/** The file for a named screenshot; the folder is made on first use. */
function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  return path.join(SCREENSHOT_DIR, `${name}.png`)
}

/**
 * Saves the page as test-artifacts/screenshots/<name>.png, the whole page
 * unless `fullPage: false`. Chromium now and then refuses a capture
 * ("Protocol error (Page.captureScreenshot): Unable to capture screenshot",
 * once in a CI run on a loaded machine) and takes the same picture when
 * asked again: that one error is retried once, after a moment.
 */
export async function saveScreenshot(page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}): Promise<void> {
  const options = { path: screenshotPath(name), fullPage }
  try {
    await page.screenshot(options)
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('Unable to capture screenshot')) throw error
    await new Promise((resolve) => setTimeout(resolve, 250))
    await page.screenshot(options)
  }
}

/** A stand-in for the merchant's site: answers every path and records the URLs it was sent to. */
export interface RedirectTarget {
  baseUrl: string
  hits: URL[]
  close(): Promise<void>
}

export async function startRedirectTarget(): Promise<RedirectTarget> {
  const hits: URL[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    hits.push(url)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><title>Merchant</title><h1>Merchant page ${url.pathname}</h1>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}
