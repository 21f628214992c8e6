// `npm run bench`: the simulator against two baselines measured in the same
// run, one that stores nothing and one that stores each session durably
// (these machines are shared and noisy, so every throughput is also given as
// a ratio), with 1,000, 100,000 and 300,000 sessions stored, all made through
// the HTTP API; plus time-to-ready, memory, the longest stall while a
// compaction runs, and CLI cold start. Prints every target of issues 18 and
// 23 with met/missed and writes bench/results/latest.json.
// docs/performance.md explains the figures and the targets.
/* global fetch */
import { execFile, fork, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import { createInterface } from 'node:readline'
import { clearInterval, setInterval } from 'node:timers'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import { SERVE_NODE_FLAGS } from '../dist/src/cli/serve-node-flags.js'
import { watchCompactions } from './compaction-watch.mjs'
import { ratioText } from './ratio-text.mjs'

const ROOT = path.resolve(import.meta.dirname, '..')
const BIN = path.join(ROOT, 'bin', 'run.js')
const RESULTS = path.join(ROOT, 'bench', 'results', 'latest.json')

const RUN_SECONDS = 5
const WARMUP_SECONDS = 1
/**
 * After each start, before anything is measured: creates, gets and lists for
 * this long, so that V8 has compiled the request path and sized its heap.
 * A simulator fresh from start-up spent 1.4–1.8× the CPU on a create of one
 * that had run 10 seconds (docs/performance.md, "Warm-up").
 */
const START_WARMUP_SECONDS = 8
const CONNECTIONS = [10, 50]
/** Create runs of the two baselines and the simulator, interleaved, at each point and number of connections. */
const CREATE_TRIPLES = 3
const STORED = [1_000, 100_000, 300_000]
/** The point most targets are judged at. */
const AT = 100_000
/**
 * Creates rotate over this many secret keys of one merchant, as in the
 * outside harness of issue 18; the per-key limit (10,000 a minute) then
 * allows 6,600 creates a second, above what this machine reaches. A run that
 * meets a 429 fails, naming it.
 */
const SECRET_KEYS = 40
/** Connections that build the stored data (the runs use CONNECTIONS). */
const BUILD_CONNECTIONS = 50
const COLD_START_RUNS = 10
const READY_RUNS = 3
/**
 * The memory target is judged after this many creates on a fresh start at
 * the point, as the outside harness of issue 18 measured it (after a burst
 * of 98,720): the runs above are timed, so what they add grows with the
 * machine's speed (185,000 sessions on one day, 407,000 on a quicker one).
 */
const MEMORY_LOAD_CREATES = 100_000
/** How long the create burst may run to bring about a compaction before the probe gives up. */
const BURST_LIMIT_SECONDS = 300

const TARGETS = {
  createVsBaseline: 0.6,
  /** `bula sessions list` against bench/fetch-sessions.mjs (the same GET with fetch), same Node, same run. */
  coldStartVsFetch: 1.6,
  createP99Ms: 25,
  createGrowth: 1.5,
  coldStartMs: 300,
  readyMs: 1_000,
  readyMsAt300k: 2_500,
  stallMs: 100,
  rssMb: 400,
}

/** The body of every create, when building the data and in the runs: what the outside harness sent. */
const CREATE_BODY = JSON.stringify({ amount: 1500, currency: 'FJD', metadata: { order: '42' } })

/**
 * A bench child (sim-server.mjs, baseline-server.mjs, probe.mjs) and a way to
 * ask it something over IPC. The simulator runs with the Node.js options
 * `bula serve` runs with.
 */
async function startChild(script, args = []) {
  const execArgv = ['--expose-gc', ...(script === 'sim-server.mjs' ? SERVE_NODE_FLAGS : [])]
  const child = fork(path.join(ROOT, 'bench', script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv })
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

/** A business merchant with SECRET_KEYS secret keys, made through the API. */
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

function checked(result) {
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${failed} of ${result.requests.total} requests failed: ${JSON.stringify(result.statusCodeStats)}`)
  return result
}

async function load(baseUrl, connections, requests, seconds) {
  const result = checked(await autocannon({ url: baseUrl, connections, duration: seconds, requests }))
  return { reqPerSec: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, maxMs: result.latency.max, requests: result.requests.total }
}

/** One measured run after an unrecorded warm-up, so JIT and connection set-up stay out of the figures; `made` counts both. */
async function measure(baseUrl, connections, requests) {
  const warmUp = await load(baseUrl, connections, requests, WARMUP_SECONDS)
  const run = await load(baseUrl, connections, requests, RUN_SECONDS)
  return { ...run, made: warmUp.requests + run.requests }
}

/** Creates sessions through the API until `count` more exist; answers how long it took. */
async function createMore(baseUrl, secrets, count) {
  if (count <= 0) return 0
  const started = process.hrtime.bigint()
  checked(await autocannon({ url: baseUrl, connections: BUILD_CONNECTIONS, amount: count, requests: requestsFor('create', secrets, []) }))
  return elapsedMs(started)
}

/**
 * Waits for the start-up work that runs in the background after the ready
 * line: locating the documents of the lazy collections (Store.located), then
 * the clock's read of every stored session (what is due when). A clock advance
 * of 0 ms waits for it (docs/simulator.md). Answers how long it still took.
 */
async function startUpScan(baseUrl, secret) {
  const started = process.hrtime.bigint()
  await api(baseUrl, 'POST', '/_sim/clock/advance', { key: secret, body: { ms: 0 } })
  return Math.round(elapsedMs(started))
}

/** START_WARMUP_SECONDS of creates, then of gets and lists where the server has them (not the baseline); answers the creates made. */
async function warmUp(baseUrl, secrets, sessionIds) {
  const operations = sessionIds.length > 0 ? ['create', 'get', 'list'] : ['create']
  let creates = 0
  for (const operation of operations) {
    const seconds = operation === 'create' ? START_WARMUP_SECONDS : WARMUP_SECONDS
    const run = await load(baseUrl, CONNECTIONS[0], requestsFor(operation, secrets, sessionIds), seconds)
    if (operation === 'create') creates += run.requests
  }
  return creates
}

async function firstSessionIds(baseUrl, secret) {
  return (await api(baseUrl, 'GET', '/v1/checkout-sessions?limit=100', { key: secret })).data.map((session) => session.id)
}

const withoutCount = ({ made: _made, ...run }) => run

/** Runs of the same load as one: mean throughput, latencies and CPU, to a tenth. */
const meanOf = (runs) => Object.fromEntries(Object.keys(runs[0]).map((key) => [key, Number((runs.reduce((sum, run) => sum + run[key], 0) / runs.length).toFixed(1))]))

/**
 * measure() on the simulator, with its CPU time per request (user + system,
 * all threads, warm-up included). It moves with the machine's speed too (the
 * same build measured 167 and 265 µs a create twenty minutes apart, other
 * tenants sharing the cores), so it compares runs of one bench, not benches.
 */
async function measureSimulator(sim, connections, requests) {
  const cpu = await sim.ask({ type: 'cpu' }, 'cpu')
  const run = await measure(sim.baseUrl, connections, requests)
  const used = await sim.ask({ type: 'cpu' }, 'cpu')
  return { ...run, cpuUsPerRequest: Math.round((used.user + used.system - cpu.user - cpu.system) / run.made) }
}

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

/** `bula serve` on the data file: spawn to its JSON ready line, then a graceful stop; the median and every run. */
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
  return { ms: median(times), runs: times.map(Math.round) }
}

/**
 * A create burst at 10 connections with the stall probe running, until the
 * store has compacted (its journal shrinks: the swap) and a second more:
 * the longest wait of a /_sim/health probe sent every 10 ms, and the
 * longest event-loop delay the simulator saw itself.
 */
async function stallDuringCompaction(sim, dataFile, secrets) {
  const journal = `${dataFile}.journal`
  await sim.ask({ type: 'loop' }, 'loop')
  const probe = await startChild('probe.mjs', [sim.baseUrl])
  const burst = autocannon({ url: sim.baseUrl, connections: CONNECTIONS[0], duration: BURST_LIMIT_SECONDS, requests: requestsFor('create', secrets, []) })
  const started = process.hrtime.bigint()
  let largest = 0
  let compactedAfterMs = null
  while (elapsedMs(started) < BURST_LIMIT_SECONDS * 1000) {
    await sleep(200)
    const { size } = await stat(journal)
    if (size < largest / 2) {
      compactedAfterMs = elapsedMs(started)
      break
    }
    largest = Math.max(largest, size)
  }
  await sleep(1_000)
  burst.stop()
  const result = checked(await burst)
  const probed = await probe.ask({ type: 'stop' }, 'stopped')
  const loop = await sim.ask({ type: 'loop' }, 'loop')
  return {
    compacted: compactedAfterMs !== null,
    burstSeconds: Math.round(elapsedMs(started) / 1000),
    compactedAfterSeconds: compactedAfterMs === null ? null : Math.round(compactedAfterMs / 1000),
    journalMb: mb(largest),
    creates: result.requests.total,
    probeMaxMs: Math.round(probed.maxMs),
    probeP99Ms: Math.round(probed.p99Ms),
    probes: probed.probes,
    loopMaxMs: Math.round(loop.maxMs),
    workMaxMs: loop.workMs === null ? null : Math.round(loop.workMs),
  }
}

/** A point's copy of the data, and its journal, once measured: up to 350 MB each. */
async function removeDataFile(file) {
  await rm(file, { force: true })
  await rm(`${file}.journal`, { force: true })
}

const mb = (bytes) => Math.round(bytes / 1e5) / 10

async function main() {
  const started = process.hrtime.bigint()
  const folder = await mkdtemp(path.join(os.tmpdir(), 'bula-bench-'))
  const machine = {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadBefore: os.loadavg().map((n) => Number(n.toFixed(2))),
  }
  console.log(`bench: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGb} GiB, Node ${machine.node}, load ${machine.loadBefore.join(' ')}; data in ${folder}`)
  const loadSamples = []
  const sampler = setInterval(() => loadSamples.push(os.loadavg()[0]), 10_000)

  const baseline = await startChild('baseline-server.mjs')
  const durableBaseline = await startChild('baseline-server.mjs', [path.join(folder, 'durable-baseline.jsonl')])
  // The data grows in builtFile through createMore only. Each point is measured on a copy of it, so that the runs'
  // own creates (tens of thousands) do not carry over to the next point: each starts at exactly its count.
  const builtFile = path.join(folder, 'built.json')
  let builder = await startChild('sim-server.mjs', [builtFile])
  let sim = null
  let dataFile = null
  const rows = []
  const points = []
  const extras = {}
  let built = 0
  try {
    const secrets = await setUpMerchant(builder.baseUrl)
    await warmUp(baseline.baseUrl, secrets, [])
    await warmUp(durableBaseline.baseUrl, secrets, [])
    for (const stored of STORED) {
      if (sim) {
        await sim.close()
        sim = null
        await removeDataFile(dataFile)
      }
      builder ??= await startChild('sim-server.mjs', [builtFile])
      const made = stored - built
      const buildMs = await createMore(builder.baseUrl, secrets, made)
      built += made
      console.log(`${stored.toLocaleString('en')}: ${built.toLocaleString('en')} sessions stored (${made.toLocaleString('en')} made through the API in ${(buildMs / 1000).toFixed(1)} s)`)
      // Measured on the file as a fresh start finds it: closed cleanly (the journal then is empty), copied, then
      // opened by `bula serve` and by the bench's own simulator.
      await builder.close()
      builder = null
      dataFile = path.join(folder, `at-${stored}.json`)
      await copyFile(builtFile, dataFile)
      const point = { stored, sessions: built, dataFileMb: mb((await stat(dataFile)).size), madeByRuns: 0 }
      const ready = await timeToReady(dataFile)
      point.readyMs = ready.ms
      point.readyRuns = ready.runs
      console.log(`  bula serve time-to-ready (${point.dataFileMb} MB file): ${ready.runs.join(', ')} ms`)
      sim = await startChild('sim-server.mjs', [dataFile])
      point.startUpScanMs = await startUpScan(sim.baseUrl, secrets[0])
      const afterStart = await sim.ask({ type: 'memory' }, 'memory')
      point.rssAfterStartMb = mb(afterStart.rss)
      const sessionIds = await firstSessionIds(sim.baseUrl, secrets[0])
      // The phases after the first each start on a fresh copy of the point's file, without the creates before them.
      const restartOnFreshCopy = async () => {
        await sim.close()
        await removeDataFile(dataFile)
        await copyFile(builtFile, dataFile)
        sim = await startChild('sim-server.mjs', [dataFile])
        await startUpScan(sim.baseUrl, secrets[0])
      }
      for (const [phase, connections] of CONNECTIONS.entries()) {
        // The runs at one number of connections add hundreds of thousands of sessions on a quick machine (360,305 at
        // 100,000 on 27 November), so the next starts again from the point's own data, and warm.
        if (phase > 0) {
          await restartOnFreshCopy()
          point.madeByRuns = 0
        }
        point.madeByRuns += await warmUp(sim.baseUrl, secrets, sessionIds)
        // Creates in interleaved triples, the two baselines then the simulator, and the median of the triples'
        // ratios: the machine's speed drifts (other tenants share its cores), and runs seconds apart drift least.
        const triples = []
        for (let n = 0; n < CREATE_TRIPLES; n++) {
          const base = await measure(baseline.baseUrl, connections, requestsFor('create', secrets, sessionIds))
          const durable = await measure(durableBaseline.baseUrl, connections, requestsFor('create', secrets, sessionIds))
          const compactions = watchCompactions(dataFile)
          const create = await measureSimulator(sim, connections, requestsFor('create', secrets, sessionIds))
          const compacted = await compactions.stop()
          point.madeByRuns += create.made
          triples.push({ base: withoutCount(base), durable: withoutCount(durable), create: withoutCount(create), compacted })
        }
        const base = meanOf(triples.map((triple) => triple.base))
        const durable = meanOf(triples.map((triple) => triple.durable))
        const create = meanOf(triples.map((triple) => triple.create))
        const ratiosTo = (server) => triples.map((triple) => triple.create.reqPerSec / triple[server].reqPerSec)
        const rounded = (ratios) => ratios.map((ratio) => Number(ratio.toFixed(2)))
        const compactedIn = triples.map((triple) => triple.compacted)
        const runs = [
          {
            operation: 'create',
            ...create,
            cpuUsPerRequest: Math.round(create.cpuUsPerRequest),
            vsBaseline: median(ratiosTo('base')),
            vsDurable: median(ratiosTo('durable')),
            ratiosToBaseline: rounded(ratiosTo('base')),
            ratiosToDurable: rounded(ratiosTo('durable')),
            compactedIn,
          },
        ]
        for (const operation of ['get', 'list']) {
          const run = withoutCount(await measureSimulator(sim, connections, requestsFor(operation, secrets, sessionIds)))
          runs.push({ operation, ...run, vsBaseline: run.reqPerSec / base.reqPerSec })
        }
        rows.push({ server: 'baseline', operation: 'create', stored: 0, connections, ...base, vsBaseline: 1 })
        rows.push({ server: 'durable baseline', operation: 'create', stored: 0, connections, ...durable, vsBaseline: durable.reqPerSec / base.reqPerSec })
        for (const run of runs) {
          rows.push({ server: 'simulator', stored, connections, ...run })
          const marked = (ratios) => ratios.map((ratio, n) => `${ratio}${run.compactedIn[n] ? '*' : ''}`).join(', ')
          const compactions = run.compactedIn?.some(Boolean) ? ' (*: a compaction ended in that run)' : ''
          const ratios = run.ratiosToBaseline ? `; × baseline in ${CREATE_TRIPLES} triples: ${marked(run.ratiosToBaseline)}; × durable baseline: ${marked(run.ratiosToDurable)}${compactions}` : ''
          console.log(`  ${run.operation}, ${connections} connections: ${run.reqPerSec.toFixed(0)} req/s (baseline ${base.reqPerSec.toFixed(0)}, durable baseline ${durable.reqPerSec.toFixed(0)}), ${run.cpuUsPerRequest} µs CPU a request${ratios}`)
        }
      }
      const afterRuns = await sim.ask({ type: 'memory' }, 'memory')
      Object.assign(point, {
        rssAfterRunsMb: mb(afterRuns.rss),
        heapAfterRunsMb: mb(afterRuns.heapUsed),
        rssAfterGcMb: mb(afterRuns.rssAfterGc),
        heapAfterGcMb: mb(afterRuns.heapAfterGc),
        peakRssMb: mb(afterRuns.peakRss),
      })
      console.log(`  memory: RSS ${point.rssAfterStartMb} MB after start, ${point.rssAfterRunsMb} MB after the ${CONNECTIONS.at(-1)}-connection runs (${point.rssAfterGcMb} MB after a full GC), which made ${point.madeByRuns.toLocaleString('en')} sessions more`)
      await restartOnFreshCopy()
      await createMore(sim.baseUrl, secrets, MEMORY_LOAD_CREATES)
      const afterLoad = await sim.ask({ type: 'memory' }, 'memory')
      Object.assign(point, { rssAfterLoadMb: mb(afterLoad.rss), rssAfterLoadGcMb: mb(afterLoad.rssAfterGc) })
      console.log(`  memory after ${MEMORY_LOAD_CREATES.toLocaleString('en')} creates on a fresh start: RSS ${point.rssAfterLoadMb} MB (${point.rssAfterLoadGcMb} MB after a full GC)`)
      if (stored === AT) {
        // The burst's compaction then rewrites the point's data and its own.
        await restartOnFreshCopy()
        extras.stall = await stallDuringCompaction(sim, dataFile, secrets)
        const { stall } = extras
        console.log(
          `  stall probe: ${stall.compacted ? `compacted after ${stall.compactedAfterSeconds} s of creates (journal ${stall.journalMb} MB)` : `no compaction in ${stall.burstSeconds} s`}; longest probe wait ${stall.probeMaxMs} ms (p99 ${stall.probeP99Ms} ms of ${stall.probes}), longest event-loop delay ${stall.loopMaxMs} ms (of its own work: ${stall.workMaxMs ?? '?'} ms)`,
        )
      }
      points.push(point)
    }
    const cliEnv = { BULA_BASE_URL: sim.baseUrl, BULA_API_KEY: secrets[0], BULA_CONFIG_DIR: path.join(folder, 'config') }
    extras.coldStartVersionMs = await coldStart(['--version'], cliEnv)
    extras.coldStartSessionsListMs = await coldStart(['sessions', 'list'], cliEnv)
    extras.coldStartFetchScriptMs = await coldStart([], cliEnv, path.join(ROOT, 'bench', 'fetch-sessions.mjs'))
  } finally {
    clearInterval(sampler)
    await sim?.close()
    await builder?.close()
    await baseline.close()
    await durableBaseline.close()
  }
  await rm(folder, { recursive: true, force: true })

  machine.loadDuring = loadSamples.length > 0 ? { min: Math.min(...loadSamples), max: Math.max(...loadSamples), mean: Number((loadSamples.reduce((a, b) => a + b, 0) / loadSamples.length).toFixed(2)) } : null
  const report = { date: new Date().toISOString(), machine, runSeconds: RUN_SECONDS, secretKeys: SECRET_KEYS, rows, points, ...extras }
  report.targets = evaluate(report)
  report.totalSeconds = Math.round(elapsedMs(started) / 1000)
  await mkdir(path.dirname(RESULTS), { recursive: true })
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\n${renderTable(report)}\nWritten to ${path.relative(ROOT, RESULTS)} in ${report.totalSeconds} s.`)
}

/** Every target of issues 18 and 23 (and issue 8's before them), each with what was measured. */
function evaluate({ rows, points, stall, ...extras }) {
  const creates = rows.filter((row) => row.server === 'simulator' && row.operation === 'create')
  const createAt = (stored, connections) => creates.find((row) => row.stored === stored && row.connections === connections)
  const point = (stored) => points.find((p) => p.stored === stored)
  const ratios = (list) => list.map((row) => row.vsBaseline)
  // Judged as the issue's own measurement was (its "Why": an Express+zod baseline with durable writes, 10 connections).
  // The 50-connection ratio is printed beside it as a watch line: there the spread between runs (0.50–0.69 in one
  // run's triples) is wider than the margin, so it decides nothing on its own. docs/performance.md says why.
  const judged = createAt(AT, CONNECTIONS[0])
  const watched = createAt(AT, CONNECTIONS.at(-1))
  const worst = Math.min(...ratios(creates))
  const first = STORED[0]
  const last = STORED.at(-1)
  const flat = Math.max(...CONNECTIONS.map((c) => createAt(first, c).reqPerSec / createAt(last, c).reqPerSec))
  const readyGrowth = point(last).readyMs / point(AT).readyMs
  const dataGrowth = last / AT
  const p99 = createAt(AT, CONNECTIONS[0]).p99Ms
  const coldStart = Math.max(extras.coldStartVersionMs, extras.coldStartSessionsListMs)
  const vsFetch = extras.coldStartSessionsListMs / extras.coldStartFetchScriptMs
  const stallMs = Math.max(stall.probeMaxMs, stall.loopMaxMs)
  const n = (value) => value.toLocaleString('en')
  return [
    { issue: 18, target: `time-to-ready < 1 s, ${n(AT)} stored (median of ${READY_RUNS})`, measured: `${Math.round(point(AT).readyMs)} ms`, met: point(AT).readyMs < TARGETS.readyMs },
    { issue: 18, target: `time-to-ready < 2.5 s, ${n(last)} stored (median of ${READY_RUNS})`, measured: `${Math.round(point(last).readyMs)} ms`, met: point(last).readyMs < TARGETS.readyMsAt300k },
    {
      issue: 18,
      target: `no event-loop stall over 100 ms, ${n(AT)} stored, during a create burst through a compaction`,
      measured: stall.compacted ? `probe ${stall.probeMaxMs} ms, event loop ${stall.loopMaxMs} ms (own work at most ${stall.workMaxMs ?? '?'} ms)` : `no compaction in ${stall.burstSeconds} s`,
      met: stall.compacted && stallMs <= TARGETS.stallMs,
    },
    {
      issue: 18,
      target: `RSS < 400 MB, ${n(AT)} stored, after ${n(MEMORY_LOAD_CREATES)} creates (as found, no forced GC)`,
      measured: `${point(AT).rssAfterLoadMb} MB (${point(AT).rssAfterLoadGcMb} MB after a full GC; after the ${CONNECTIONS.at(-1)}-connection runs, ${n(point(AT).madeByRuns)} creates since a fresh start: ${point(AT).rssAfterRunsMb} MB)`,
      met: point(AT).rssAfterLoadMb < TARGETS.rssMb,
    },
    { issue: 18, target: `growth: time-to-ready ${n(AT)} → ${n(last)} at most linear (≤ ${dataGrowth}×)`, measured: `${readyGrowth.toFixed(2)}×`, met: readyGrowth <= dataGrowth },
    { issue: 18, target: `growth: create req/s flat, ${n(first)} stored ≤ ${TARGETS.createGrowth}× ${n(last)} stored`, measured: `${flat.toFixed(2)}×`, met: flat <= TARGETS.createGrowth },
    {
      issue: 18,
      target: `create ≥ 0.6× the same-run durable baseline, ${n(AT)} stored, ${CONNECTIONS[0]} connections`,
      measured: `${ratioText(judged.vsDurable, TARGETS.createVsBaseline)}× (against the baseline that stores nothing: ${ratioText(judged.vsBaseline, TARGETS.createVsBaseline)}×; watch, ${CONNECTIONS.at(-1)} connections: ${ratioText(watched.vsDurable, TARGETS.createVsBaseline)}× and ${ratioText(watched.vsBaseline, TARGETS.createVsBaseline)}×)`,
      met: judged.vsDurable >= TARGETS.createVsBaseline,
    },
    { issue: 23, target: `create ≥ 0.6× the Express+zod baseline on ${process.version} (worst run)`, measured: `${ratioText(worst, TARGETS.createVsBaseline)}×`, met: worst >= TARGETS.createVsBaseline },
    {
      issue: 23,
      target: '`bula sessions list` ≤ 1.6× the same GET from bench/fetch-sessions.mjs (same Node, same run)',
      measured: `${vsFetch.toFixed(2)}× (${extras.coldStartSessionsListMs.toFixed(0)} vs ${extras.coldStartFetchScriptMs.toFixed(0)} ms)`,
      met: vsFetch <= TARGETS.coldStartVsFetch,
    },
    { issue: 8, target: `create p99 < 25 ms, 10 connections, ${n(AT)} stored`, measured: `${p99} ms`, met: p99 < TARGETS.createP99Ms },
    { issue: 8, target: 'CLI cold start < 300 ms (median, worse of --version and sessions list)', measured: `${coldStart.toFixed(0)} ms`, met: coldStart < TARGETS.coldStartMs },
  ]
}

function renderTable(report) {
  const n = (value) => value.toLocaleString('en')
  const growth = (key, digits = 0) => report.points.map((p) => `${typeof p[key] === 'number' ? n(Number(p[key].toFixed(digits))) : p[key]}`).join(' → ')
  const createsAt = (connections) => report.points.map((p) => n(Math.round(report.rows.find((row) => row.server === 'simulator' && row.operation === 'create' && row.stored === p.stored && row.connections === connections).reqPerSec))).join(' → ')
  const { stall, machine } = report
  const lines = [
    '| server | operation | stored | connections | req/s | p50 ms | p99 ms | CPU µs/req | × baseline create | × durable baseline create |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.rows.map(
      (row) =>
        `| ${row.server} | ${row.operation} | ${row.server === 'simulator' ? n(row.stored) : '—'} | ${row.connections} | ${n(Math.round(row.reqPerSec))} | ${row.p50Ms} | ${row.p99Ms} | ${row.cpuUsPerRequest ?? '—'} | ${row.vsBaseline.toFixed(2)} | ${row.vsDurable?.toFixed(2) ?? '—'} |`,
    ),
    '',
    `Growth, ${report.points.map((p) => n(p.stored)).join(' → ')} sessions stored (all made through the API, ${report.secretKeys} secret keys):`,
    `- data file: ${growth('dataFileMb', 1)} MB`,
    `- \`bula serve\` time-to-ready (median of ${READY_RUNS}): ${growth('readyMs')} ms (runs: ${report.points.map((p) => p.readyRuns.join('/')).join(' → ')})`,
    `- start-up work still running after the ready line (locating the lazy collections, the clock's read of the sessions): ${growth('startUpScanMs')} ms more`,
    `- RSS after start: ${growth('rssAfterStartMb', 1)} MB; after ${n(MEMORY_LOAD_CREATES)} creates: ${growth('rssAfterLoadMb', 1)} MB; after the ${CONNECTIONS.at(-1)}-connection runs (${growth('madeByRuns')} creates since a fresh start): ${growth('rssAfterRunsMb', 1)} MB (after a full GC: ${growth('rssAfterGcMb', 1)} MB; JS heap ${growth('heapAfterGcMb', 1)} MB)`,
    `- create req/s, 10 connections: ${createsAt(10)}; 50 connections: ${createsAt(50)}`,
    `- stall probe at ${n(AT)}: ${stall.compacted ? `a compaction after ${stall.compactedAfterSeconds} s of creates (${n(stall.creates)} creates, journal ${stall.journalMb} MB)` : `no compaction in ${stall.burstSeconds} s`}; longest /_sim/health wait ${stall.probeMaxMs} ms (p99 ${stall.probeP99Ms} ms, ${n(stall.probes)} probes); longest event-loop delay ${stall.loopMaxMs} ms; the simulator's own work ran at most ${stall.workMaxMs ?? '?'} ms at a stretch (main-thread CPU between two 10 ms ticks: a longer delay is the process waiting for a CPU on a loaded machine)`,
    `- \`bula --version\` cold start: ${report.coldStartVersionMs.toFixed(0)} ms; \`bula sessions list\`: ${report.coldStartSessionsListMs.toFixed(0)} ms; the same GET from bench/fetch-sessions.mjs: ${report.coldStartFetchScriptMs.toFixed(0)} ms (medians of ${COLD_START_RUNS}, ${machine.node})`,
    `- machine load (1-minute average): ${machine.loadBefore[0]} at the start, ${machine.loadDuring ? `${machine.loadDuring.min.toFixed(2)}–${machine.loadDuring.max.toFixed(2)} (mean ${machine.loadDuring.mean}) during the run` : 'not sampled'}; ${machine.cpus} CPUs`,
    '',
    '| issue | target | measured | met |',
    '|---|---|---|---|',
    ...report.targets.map((target) => `| ${target.issue} | ${target.target} | ${target.measured} | ${target.met ? 'yes' : 'no'} |`),
  ]
  return lines.join('\n')
}

await main()
