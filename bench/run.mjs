// `npm run bench`: the simulator against a baseline measured in the same run
// (these machines are shared and noisy, so every throughput is also given as
// a ratio), with 1,000 and 100,000 sessions stored, plus CLI cold start,
// time-to-ready and memory. Prints a table and writes bench/results/latest.json.
// docs/performance.md explains the figures and the targets.
/* global fetch */
import { execFile, fork, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import autocannon from 'autocannon'

const ROOT = path.resolve(import.meta.dirname, '..')
const BIN = path.join(ROOT, 'bin', 'run.js')
const RESULTS = path.join(ROOT, 'bench', 'results', 'latest.json')

const RUN_SECONDS = 5
const WARMUP_SECONDS = 1
const CONNECTIONS = [10, 50]
const STORED = [1_000, 100_000]
/** Creates rotate over this many secret keys, so the per-key limit (10,000 a minute) never answers 429 mid-run. */
const SECRET_KEYS = 50
const COLD_START_RUNS = 10
const READY_RUNS = 3

const TARGETS = {
  createVsBaseline: 0.6,
  /** `bula sessions list` against bench/fetch-sessions.mjs (the same GET with fetch), same Node, same run. */
  coldStartVsFetch: 1.6,
  createP99Ms: 25,
  createGrowth: 1.5,
  coldStartMs: 300,
  readyMs: 1_000,
  rssMb: 400,
}

const CREATE_BODY = JSON.stringify({ amount: 1500, currency: 'FJD', metadata: { order: '42' } })

/** A bench child (sim-server.mjs or baseline-server.mjs) and a way to ask it something over IPC. */
async function startChild(script, args = []) {
  const child = fork(path.join(ROOT, 'bench', script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--expose-gc'] })
  const ask = (message, answer) =>
    new Promise((resolve, reject) => {
      const onMessage = (reply) => {
        if (reply.type !== answer && reply.type !== 'error') return
        child.off('message', onMessage)
        child.off('exit', onExit)
        if (reply.type === 'error') reject(new Error(`${script}: ${reply.message}`))
        else resolve(reply)
      }
      const onExit = (code) => reject(new Error(`${script} exited with ${code}`))
      child.on('message', onMessage)
      child.once('exit', onExit)
      if (message) child.send(message)
    })
  const { baseUrl } = await ask(null, 'ready')
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    baseUrl,
    pid: child.pid,
    ask,
    close: async () => {
      if (child.connected) child.send({ type: 'close' })
      await exited
    },
  }
}

async function api(baseUrl, method, route, { key, body } = {}) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await response.json()
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** A business merchant with SECRET_KEYS secret keys. */
async function setUpMerchant(baseUrl) {
  const { keys } = await api(baseUrl, 'POST', '/_sim/merchants', { body: { email: 'bench@example.test', name: 'Bench Ltd', tier: 'business' } })
  const secrets = [keys.secret]
  while (secrets.length < SECRET_KEYS) {
    secrets.push((await api(baseUrl, 'POST', '/v1/api-keys', { key: keys.secret, body: { type: 'secret' } })).key.plaintext)
  }
  return secrets
}

/** What autocannon sends for each operation; setupRequest gives every create a fresh Idempotency-Key. */
function requestsFor(operation, secrets, sessionIds) {
  const auth = (n) => `Bearer ${secrets[n % secrets.length]}`
  let sent = 0
  if (operation === 'create') {
    return [
      {
        method: 'POST',
        path: '/v1/checkout-sessions',
        body: CREATE_BODY,
        setupRequest: (request) => ({
          ...request,
          headers: { 'content-type': 'application/json', authorization: auth(sent++), 'idempotency-key': randomUUID() },
        }),
      },
    ]
  }
  if (operation === 'get') {
    return [
      {
        method: 'GET',
        setupRequest: (request) => ({
          ...request,
          path: `/v1/checkout-sessions/${sessionIds[sent++ % sessionIds.length]}`,
          headers: { authorization: auth(0) },
        }),
      },
    ]
  }
  return [{ method: 'GET', path: '/v1/checkout-sessions?limit=10', headers: { authorization: auth(0) } }]
}

async function load(baseUrl, connections, requests, seconds) {
  const result = await autocannon({ url: baseUrl, connections, duration: seconds, requests })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${failed} of ${result.requests.total} requests failed: ${JSON.stringify(result.statusCodeStats)}`)
  return { reqPerSec: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, maxMs: result.latency.max, requests: result.requests.total }
}

/** One measured run after an unrecorded warm-up, so JIT and connection set-up stay out of the figures. */
async function measure(baseUrl, connections, requests) {
  await load(baseUrl, connections, requests, WARMUP_SECONDS)
  return load(baseUrl, connections, requests, RUN_SECONDS)
}

async function firstSessionIds(baseUrl, secret) {
  return (await api(baseUrl, 'GET', '/v1/checkout-sessions?limit=100', { key: secret })).data.map((session) => session.id)
}

/** Two runs of the same load as one: mean throughput and latencies. */
const meanOf = (a, b) => Object.fromEntries(Object.keys(a).map((key) => [key, (a[key] + b[key]) / 2]))

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const elapsedMs = (start) => Number(process.hrtime.bigint() - start) / 1e6

/** Median wall time of `node <script> ...args`, start to exit (bula's own by default). */
async function coldStart(args, env, script = BIN) {
  const times = []
  for (let n = 0; n < COLD_START_RUNS; n++) {
    const start = process.hrtime.bigint()
    await promisify(execFile)(process.execPath, [script, ...args], { env: { ...process.env, ...env } })
    times.push(elapsedMs(start))
  }
  return median(times)
}

/** `bula serve` on the data file: spawn to its JSON ready line, then a graceful stop. */
async function timeToReady(dataFile) {
  const times = []
  for (let n = 0; n < READY_RUNS; n++) {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, 'serve', '--data', dataFile, '--port', '0', '--json', '--quiet', '--no-save-profile'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const [line] = await Promise.race([
      new Promise((resolve) => createInterface({ input: child.stdout }).once('line', (text) => resolve([text]))),
      exited.then((code) => Promise.reject(new Error(`bula serve exited with ${code} before ready: ${stderr}`))),
    ])
    times.push(elapsedMs(start))
    if (JSON.parse(line).event !== 'ready') throw new Error(`bula serve printed ${line}`)
    child.kill('SIGTERM')
    await exited
  }
  return median(times)
}

const mb = (bytes) => Math.round(bytes / 1e5) / 10

async function main() {
  const started = process.hrtime.bigint()
  const folder = await mkdtemp(path.join(os.tmpdir(), 'bula-bench-'))
  const dataFile = path.join(folder, 'data.json')
  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  }
  console.log(`bench: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GiB, Node ${machine.node}; data in ${folder}`)

  const baseline = await startChild('baseline-server.mjs')
  let sim = await startChild('sim-server.mjs', [dataFile])
  const rows = []
  const extras = {}
  try {
    const secrets = await setUpMerchant(sim.baseUrl)
    for (const stored of STORED) {
      const preloaded = await sim.ask({ type: 'preload', secrets, total: stored }, 'preloaded')
      console.log(`preloaded ${preloaded.created} sessions in ${(preloaded.ms / 1000).toFixed(1)} s`)
      if (stored === STORED.at(-1)) {
        // Measured on the file as a fresh start finds it: closed cleanly, then opened by `bula serve` and by the bench's own simulator.
        await sim.close()
        extras.dataFileMb = mb((await stat(dataFile)).size)
        extras.readyMs = await timeToReady(dataFile)
        console.log(`bula serve time-to-ready with ${stored} sessions (${extras.dataFileMb} MB file): ${extras.readyMs.toFixed(0)} ms`)
        sim = await startChild('sim-server.mjs', [dataFile])
        const started = await sim.ask({ type: 'memory' }, 'memory')
        extras.rssAfterStartMb = mb(started.rss)
        extras.peakRssAtStartMb = mb(started.peakRss)
      }
      const sessionIds = await firstSessionIds(sim.baseUrl, secrets[0])
      for (const connections of CONNECTIONS) {
        // The baseline runs before and after the simulator's runs, and their mean is the reference: the machine's load drifts.
        const before = await measure(baseline.baseUrl, connections, requestsFor('create', secrets, sessionIds))
        const runs = []
        for (const operation of ['create', 'get', 'list']) runs.push({ operation, ...(await measure(sim.baseUrl, connections, requestsFor(operation, secrets, sessionIds))) })
        const after = await measure(baseline.baseUrl, connections, requestsFor('create', secrets, sessionIds))
        const base = meanOf(before, after)
        rows.push({ server: 'baseline', operation: 'create', stored: 0, connections, ...base, vsBaseline: 1 })
        for (const run of runs) {
          rows.push({ server: 'simulator', stored, connections, ...run, vsBaseline: run.reqPerSec / base.reqPerSec })
          console.log(`  ${run.operation} with ${stored} stored, ${connections} connections: ${run.reqPerSec.toFixed(0)} req/s (baseline ${base.reqPerSec.toFixed(0)})`)
        }
      }
    }
    const memory = await sim.ask({ type: 'memory' }, 'memory')
    extras.rssAfterRunsMb = mb(memory.rss)
    extras.heapAfterRunsMb = mb(memory.heapUsed)
    extras.peakRssMb = mb(memory.peakRss)
    const cliEnv = { BULA_BASE_URL: sim.baseUrl, BULA_API_KEY: secrets[0], BULA_CONFIG_DIR: path.join(folder, 'config') }
    extras.coldStartVersionMs = await coldStart(['--version'], cliEnv)
    extras.coldStartSessionsListMs = await coldStart(['sessions', 'list'], cliEnv)
    extras.coldStartFetchScriptMs = await coldStart([], cliEnv, path.join(ROOT, 'bench', 'fetch-sessions.mjs'))
  } finally {
    await sim.close()
    await baseline.close()
  }
  await rm(folder, { recursive: true, force: true })

  const report = { date: new Date().toISOString(), machine, runSeconds: RUN_SECONDS, rows, ...extras, targets: evaluate(rows, extras) }
  report.totalSeconds = Math.round(elapsedMs(started) / 1000)
  await mkdir(path.dirname(RESULTS), { recursive: true })
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\n${renderTable(report)}\nWritten to ${path.relative(ROOT, RESULTS)} in ${report.totalSeconds} s.`)
}

/** The targets, each with what was measured. */
function evaluate(rows, extras) {
  const creates = rows.filter((row) => row.server === 'simulator' && row.operation === 'create')
  const createAt = (stored, connections) => creates.find((row) => row.stored === stored && row.connections === connections)
  const growth = Math.max(...CONNECTIONS.map((c) => createAt(STORED[0], c).reqPerSec / createAt(STORED.at(-1), c).reqPerSec))
  const worstRatio = Math.min(...creates.map((row) => row.vsBaseline))
  const p99 = createAt(STORED.at(-1), CONNECTIONS[0]).p99Ms
  const coldStart = Math.max(extras.coldStartVersionMs, extras.coldStartSessionsListMs)
  const vsFetch = extras.coldStartSessionsListMs / extras.coldStartFetchScriptMs
  return [
    { target: 'create throughput ≥ 0.6× the baseline (worst run)', measured: `${worstRatio.toFixed(2)}×`, met: worstRatio >= TARGETS.createVsBaseline },
    { target: 'create p99 < 25 ms, 10 connections, 100,000 stored', measured: `${p99} ms`, met: p99 < TARGETS.createP99Ms },
    { target: 'create req/s at 1,000 stored ≤ 1.5× that at 100,000', measured: `${growth.toFixed(2)}×`, met: growth <= TARGETS.createGrowth },
    { target: 'CLI cold start < 300 ms (median, worse of the two)', measured: `${coldStart.toFixed(0)} ms`, met: coldStart < TARGETS.coldStartMs },
    {
      target: '`bula sessions list` ≤ 1.6× the same GET from a fetch script (same Node, same run)',
      measured: `${vsFetch.toFixed(2)}× (${extras.coldStartSessionsListMs.toFixed(0)} vs ${extras.coldStartFetchScriptMs.toFixed(0)} ms)`,
      met: vsFetch <= TARGETS.coldStartVsFetch,
    },
    { target: 'bula serve time-to-ready < 1 s, 100,000 stored', measured: `${extras.readyMs.toFixed(0)} ms`, met: extras.readyMs < TARGETS.readyMs },
    { target: 'resident memory < 400 MB, 100,000 stored', measured: `${extras.rssAfterRunsMb} MB`, met: extras.rssAfterRunsMb < TARGETS.rssMb },
  ]
}

function renderTable(report) {
  const lines = [
    '| server | operation | stored | connections | req/s | p50 ms | p99 ms | × baseline create |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...report.rows.map(
      (row) =>
        `| ${row.server} | ${row.operation} | ${row.server === 'baseline' ? '—' : row.stored.toLocaleString('en')} | ${row.connections} | ${Math.round(row.reqPerSec).toLocaleString('en')} | ${row.p50Ms} | ${row.p99Ms} | ${row.vsBaseline.toFixed(2)} |`,
    ),
    '',
    `- \`bula --version\` cold start: ${report.coldStartVersionMs.toFixed(0)} ms; \`bula sessions list\`: ${report.coldStartSessionsListMs.toFixed(0)} ms; the same GET from bench/fetch-sessions.mjs: ${report.coldStartFetchScriptMs.toFixed(0)} ms (medians of ${COLD_START_RUNS}, ${report.machine.node})`,
    `- \`bula serve\` time-to-ready, ${STORED.at(-1).toLocaleString('en')} sessions (${report.dataFileMb} MB data file): ${report.readyMs.toFixed(0)} ms (median of ${READY_RUNS})`,
    `- simulator memory with ${STORED.at(-1).toLocaleString('en')} sessions (after a full GC): RSS ${report.rssAfterStartMb} MB after start, ${report.rssAfterRunsMb} MB after the runs (JS heap ${report.heapAfterRunsMb} MB); peak RSS ${report.peakRssAtStartMb} MB while loading the file, ${report.peakRssMb} MB over the whole run`,
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...report.targets.map((target) => `| ${target.target} | ${target.measured} | ${target.met ? 'yes' : 'no'} |`),
  ]
  return lines.join('\n')
}

await main()
