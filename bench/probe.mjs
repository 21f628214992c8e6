// The stall probe of bench/run.mjs, in a process of its own so that the
// load generator's work does not delay it: GET /_sim/health every 10 ms
// on one kept-alive connection, and the longest time one of them waited for
// its answer. A probe is not sent while the previous one is unanswered: that
// one's wait is the stall.
//   fork('bench/probe.mjs', [baseUrl]); send 'stop' to get { maxMs, p99Ms, probes }
import http from 'node:http'
import process from 'node:process'
import { clearInterval, setInterval } from 'node:timers'

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const url = new URL('/_sim/health', process.argv[2])
const waits = []
let inFlight = false

function probe() {
  if (inFlight) return
  inFlight = true
  const sent = process.hrtime.bigint()
  http
    .get(url, { agent }, (response) => {
      response.resume()
      response.on('end', () => {
        waits.push(Number(process.hrtime.bigint() - sent) / 1e6)
        inFlight = false
      })
    })
    .on('error', (error) => {
      // After 'stop' the agent is destroyed with a probe in flight: that error has nobody left to tell.
      if (process.connected) process.send({ type: 'error', message: error.message })
      inFlight = false
    })
}

const timer = setInterval(probe, 10)
process.on('message', (message) => {
  if (message.type !== 'stop') return
  clearInterval(timer)
  const sorted = [...waits].sort((a, b) => a - b)
  process.send({ type: 'stopped', probes: waits.length, maxMs: sorted.at(-1) ?? 0, p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0 })
  agent.destroy()
  process.disconnect()
})
// bench/run.mjs stopped without asking (Ctrl-C, a kill, a failure): stop probing.
process.once('disconnect', () => {
  clearInterval(timer)
  agent.destroy()
})
process.send({ type: 'ready' })
