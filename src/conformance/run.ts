import { DEFAULT_TIMEOUT_MS } from '../client/bula-client.js'
import { ApiError } from '../errors.js'
import { isLoopbackHostname } from '../loopback.js'
import { CASES, sectionOf } from './cases/index.js'
import { CaseContext, CaseFailure, CaseSkip, type MerchantKeys, type Target, type Tier } from './context.js'
import { ConformanceClient, type Answer } from './http.js'
import { WebhookReceiver } from './receiver.js'
import { compareRecordings, readRecording, writeRecording } from './snapshots.js'
import { normalizeSteps } from './transformers.js'
import type { CaseRecording, CaseResult, ConformanceCase, ConformanceOptions, ConformanceResult, Difference, Need } from './types.js'

const setupError = (message: string): ApiError => new ApiError(0, 'conformance_setup', message)

/** The cases `only` names (sections or case ids), in run order; all of them when it is empty. */
export function selectCases(only: readonly string[] = []): ConformanceCase[] {
  if (only.length === 0) return [...CASES]
  const unknown = only.filter((name) => !CASES.some((item) => item.id === name || sectionOf(item.id) === name))
  if (unknown.length > 0) {
    const sections = [...new Set(CASES.map((item) => sectionOf(item.id)))]
    throw setupError(`No case or section named ${unknown.map((name) => `"${name}"`).join(', ')}. Sections: ${sections.join(', ')}.`)
  }
  return CASES.filter((item) => only.includes(item.id) || only.includes(sectionOf(item.id)))
}

/**
 * Whether the target has the simulator's `/_sim` controls. A target that
 * cannot be reached, does not answer in time or redirects stops the run: the
 * redirect is not followed, since the suite would then judge another host.
 */
async function probeSim(baseUrl: string, timeoutMs: number): Promise<boolean> {
  let answer: Answer
  try {
    answer = await new ConformanceClient(baseUrl, undefined, 'none', undefined, undefined, { timeoutMs }).get('/_sim/health')
  } catch (error) {
    if (error instanceof ApiError) throw error
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
    throw new ApiError(0, 'connection_failed', `Could not reach ${baseUrl} (${cause}). Is it running? \`npx bula serve\` starts the simulator.`)
  }
  if (answer.status >= 300 && answer.status < 400) {
    const location = JSON.stringify(answer.headers.get('location') ?? '')
    throw setupError(`GET ${baseUrl}/_sim/health answered ${answer.status}, a redirect to ${location}: the suite follows no redirect, so give the base URL that answers itself.`)
  }
  return answer.status === 200 && (answer.body as { status?: unknown } | undefined)?.status === 'ok'
}

/** `/x` when the target answers it, else `/v1/x`: the spec leaves the prefix of keys and endpoints open. */
async function managementPath(baseUrl: string, key: string, path: string, timeoutMs: number): Promise<string> {
  const answer = await new ConformanceClient(baseUrl, key, 'secret', undefined, undefined, { timeoutMs }).get(path)
  return answer.status === 404 ? `/v1${path}` : path
}

/** Why the target cannot meet this need, or undefined when it can. */
function unmet(need: Need, target: Target, given: MerchantKeys | undefined): string | undefined {
  switch (need) {
    case 'sim':
      return target.sim ? undefined : 'needs the simulator\'s /_sim controls (clock, customer stand-in, settings), which the target does not have'
    case 'live':
      return target.sim ? undefined : 'needs live keys, which only the simulator\'s /_sim verification can mint'
    case 'webhooks':
      return target.receiver ? undefined : 'needs a webhook receiver the target can reach: give --webhook-url, a public URL that forwards to --webhook-port'
    case 'publishable-key':
      return target.sim || given?.publishable ? undefined : 'needs a publishable key of the same merchant (--publishable-key)'
    case 'business':
    case 'individual':
      return target.sim || given?.tier === need ? undefined : `needs ${need === 'business' ? 'a Business' : 'an Individual'} account, and the key's is ${given?.tier === 'business' ? 'a Business' : 'an Individual'} one`
  }
}

/**
 * Runs the conformance suite against a target over HTTP only: the service's
 * public API, plus the simulator's `/_sim` controls when the target has them
 * (then each case signs up a merchant of its own). Records or compares each
 * case's normalized exchanges when asked. Throws an ApiError when the run
 * cannot start (no key for a target without `/_sim`, a refused key, an
 * unknown section); a failing case is a result, not an exception.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const started = performance.now()
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const cases = selectCases(options.only)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const sim = await probeSim(baseUrl, timeoutMs)

  // With /_sim every case signs up its own merchant, so the given keys (say, a profile's) are neither used nor checked.
  let given: MerchantKeys | undefined
  if (!sim) {
    if (!options.apiKey) throw setupError(`${baseUrl} has no /_sim to sign up merchants with: give a test secret key with --api-key (and --publishable-key).`)
    if (!options.apiKey.startsWith('sk_test_')) throw setupError('The suite creates, cancels and rotates objects, so it runs with a test secret key (sk_test_…) only.')
    if (options.publishableKey !== undefined && !options.publishableKey.startsWith('pk_test_')) throw setupError('--publishable-key must be a test publishable key (pk_test_…).')
    const me = await new ConformanceClient(baseUrl, options.apiKey, 'secret', undefined, undefined, { timeoutMs }).get('/v1/merchants/me')
    if (me.status !== 200) throw setupError(`${baseUrl} refused the API key: GET /v1/merchants/me answered ${me.status}.`)
    given = { secret: options.apiKey, publishable: options.publishableKey, tier: (me.body as { tier: Tier }).tier }
  }

  const signup = async (tier: Tier): Promise<MerchantKeys> => {
    if (!sim) throw new CaseSkip('needs the simulator\'s /_sim signup for another merchant')
    const answer = await new ConformanceClient(baseUrl, undefined, 'none', undefined, undefined, { timeoutMs }).post('/_sim/merchants', {
      email: 'conformance@bula.test',
      name: `Conformance ${tier}`,
      tier,
    })
    if (answer.status !== 201) throw new CaseFailure(`POST /_sim/merchants answered ${answer.status}`)
    const { keys } = answer.body as { keys: { secret: string; publishable: string } }
    return { secret: keys.secret, publishable: keys.publishable, tier }
  }

  const probeKey = given?.secret ?? (await signup('business')).secret
  const local = isLoopbackHostname(new URL(baseUrl).hostname)
  const receiver =
    options.webhookUrl !== undefined || local ? await WebhookReceiver.start({ port: options.webhookPort, publicUrl: options.webhookUrl }) : undefined
  const target: Target = {
    baseUrl,
    sim,
    local,
    apiKeysPath: await managementPath(baseUrl, probeKey, '/api-keys', timeoutMs),
    webhookEndpointsPath: await managementPath(baseUrl, probeKey, '/webhook-endpoints', timeoutMs),
    receiver,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 5000,
    timeoutMs,
    log: options.log,
  }

  const results: CaseResult[] = []
  const differences: Difference[] = []
  try {
    for (const item of cases) {
      const caseStarted = performance.now()
      const needs = item.needs ?? []
      const reason = needs.map((need) => unmet(need, target, given)).find((why) => why !== undefined)
      let outcome: CaseResult['outcome'] = 'skip'
      let why = reason
      let steps: unknown[] = []
      if (reason === undefined) {
        try {
          const merchant = sim ? await signup(needs.includes('individual') ? 'individual' : 'business') : given!
          const t = new CaseContext(target, merchant, signup)
          try {
            await item.run(t)
            outcome = 'pass'
          } finally {
            steps = normalizeSteps(t.steps, { baseUrl, receiverUrl: receiver?.publicUrl })
          }
        } catch (error) {
          outcome = error instanceof CaseSkip ? 'skip' : 'fail'
          why = error instanceof CaseSkip || error instanceof CaseFailure ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`
        }
      }
      const result: CaseResult = { id: item.id, title: item.title, rules: item.rules, outcome, ...(why !== undefined ? { reason: why } : {}), durationMs: Math.round(performance.now() - caseStarted) }
      results.push(result)
      const recording: CaseRecording = { case: item.id, title: item.title, outcome, ...(why !== undefined ? { reason: why } : {}), steps }
      if (options.record) await writeRecording(options.record, recording)
      if (options.compare) differences.push(...compareRecordings(item.id, await readRecording(options.compare, item.id), recording))
      options.onCase?.(result)
    }
  } finally {
    await receiver?.close()
  }

  const count = (outcome: CaseResult['outcome']) => results.filter((result) => result.outcome === outcome).length
  const summary = { passed: count('pass'), failed: count('fail'), skipped: count('skip'), total: results.length }
  return {
    baseUrl,
    sim,
    passed: summary.failed === 0 && differences.length === 0,
    summary,
    cases: results,
    ...(options.compare ? { differences } : {}),
    ...(options.record ? { recorded: options.record } : {}),
    durationMs: Math.round(performance.now() - started),
  }
}
