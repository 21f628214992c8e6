// The simulator under test, durable on a data file, in a process of its own
// so that autocannon's client does not share its CPU: startServer from
// dist/, as `bula serve` runs it. bench/run.mjs drives it over IPC: memory,
// CPU time, the longest event-loop delay, close. Its data is made through the
// HTTP API only (bench/run.mjs), as a user's would be.
//   node bench/sim-server.mjs <data file>
import process from 'node:process'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { clearInterval, setInterval } from 'node:timers'
import { startServer } from '../dist/server/start.js'

const server = await startServer({
  port: 0,
  dataFile: process.argv[2],
  logRequests: false,
  log: (line) => process.stderr.write(`${line}\n`),
})

/** How late the event loop ran, sampled every 10 ms: a stall shows as its length. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()

/**
 * The most CPU time the main thread spent between two ticks of a 10 ms
 * timer: a stall of the simulator's own making. On a loaded machine the
 * event loop is also late while the process merely waits for a CPU; this
 * tells the two apart (process.threadCpuUsage, Node 23.9 and later).
 */
let longestWorkMs = 0
let lastWork = process.threadCpuUsage?.()
const workTimer = setInterval(() => {
  const work = process.threadCpuUsage?.()
  if (!work || !lastWork) return
  longestWorkMs = Math.max(longestWorkMs, (work.user + work.system - lastWork.user - lastWork.system) / 1000)
  lastWork = work
}, 10)

let closing = null
function close() {
  closing ??= (async () => {
    loopDelay.disable()
    clearInterval(workTimer)
    await server.close()
  })()
  return closing
}
// bench/run.mjs stopped without asking (Ctrl-C, a kill, a failure): stop too, rather than serve on unmeasured.
process.once('disconnect', () => void close())

process.on('message', async (message) => {
  try {
    if (message.type === 'memory') {
      const found = process.memoryUsage()
      // bench/run.mjs starts this process with --expose-gc: memory is given as found and after a full collection.
      globalThis.gc?.()
      const collected = process.memoryUsage()
      process.send({ type: 'memory', rss: found.rss, heapUsed: found.heapUsed, rssAfterGc: collected.rss, heapAfterGc: collected.heapUsed, peakRss: process.resourceUsage().maxRSS * 1024 })
    } else if (message.type === 'cpu') process.send({ type: 'cpu', ...process.cpuUsage() })
    else if (message.type === 'loop') {
      process.send({ type: 'loop', maxMs: loopDelay.max / 1e6, p99Ms: loopDelay.percentile(99) / 1e6, workMs: process.threadCpuUsage ? longestWorkMs : null })
      loopDelay.reset()
      longestWorkMs = 0
    } else if (message.type === 'close') {
      await close()
      process.disconnect()
    }
  } catch (error) {
    process.send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  }
})
process.send({ type: 'ready', baseUrl: server.baseUrl })
