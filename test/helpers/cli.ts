import { execa, type Result } from 'execa'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { client, signupMerchant as signupOverHttp } from './http.js'
import { BIN, startServe, type ServeProcess } from './serve-process.js'

export type CliResult = Result<{ reject: false }>

// Vitest loads this module once per test file, so each file gets its own
// config folder and files never see each other's profiles.
let configDir: string | undefined

/** The per-test-file BULA_CONFIG_DIR the CLI runs with, created on first use. */
export function cliConfigDir(): string {
  configDir ??= mkdtempSync(path.join(tmpdir(), 'bula-cli-'))
  return configDir
}

/** For the test file's afterAll. */
export function removeCliConfigDir(): void {
  if (configDir) rmSync(configDir, { recursive: true, force: true })
  configDir = undefined
}

/**
 * Runs the built `bula` with these arguments and returns the result whatever
 * the exit code. The environment is the parent's without BULA_* and colour
 * variables (a developer's own key or profile must not leak in), plus the
 * per-file config folder and `options.env`.
 */
export function runCli(args: string[], options: { env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(BULA_|NO_COLOR$|FORCE_COLOR$)/.test(name)),
  )
  return execa('node', [BIN, ...args], {
    env: { ...inherited, BULA_CONFIG_DIR: cliConfigDir(), ...options.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  })
}

/** Parses the command's stdout as JSON, with the output in the message when it is not. */
export function parseJsonOutput<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.exitCode}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}

export interface TestMerchant {
  merchantId: string
  secret: string
  publishable: string
  /** Environment that points the CLI at this merchant. */
  env: { BULA_BASE_URL: string; BULA_API_KEY: string }
  /**
   * The API with this merchant's secret key, for a test's set-up (the
   * payments, settings and objects it needs before the command it is about):
   * an HTTP call instead of a CLI start.
   */
  api: ReturnType<typeof client>
}

/**
 * Signs up a fresh merchant over HTTP, so each test owns its state; `bula
 * merchants signup` itself is tested in merchants-and-profiles.test.ts.
 */
export async function signupMerchant(baseUrl: string, tier: 'business' | 'individual' = 'business'): Promise<TestMerchant> {
  const { merchant, keys } = await signupOverHttp(baseUrl, tier, `CLI ${tier}`)
  return {
    merchantId: merchant.id,
    secret: keys.secret,
    publishable: keys.publishable,
    env: { BULA_BASE_URL: baseUrl, BULA_API_KEY: keys.secret },
    api: client(baseUrl, keys.secret),
  }
}

/**
 * For a test file that runs the CLI against a simulator: starts an in-memory
 * `bula serve` before the file's tests, stops it and removes the config
 * folder after them, and returns an accessor for the running server.
 */
export function useServe(): () => ServeProcess {
  let serve: ServeProcess | undefined
  beforeAll(async () => {
    serve = await startServe({ memory: true })
  })
  afterAll(async () => {
    await serve?.stop()
    removeCliConfigDir()
  })
  return () => {
    if (!serve) throw new Error('useServe(): the simulator is not running (called outside a test?)')
    return serve
  }
}
