// The simulator under test, durable on a data file, in a process of its own
// so that autocannon's client does not share its CPU. bench/run.mjs drives it
// over IPC: preload sessions, report memory, close.
//   node bench/sim-server.mjs <data file>
import process from 'node:process'
import { randomUUID } from 'node:crypto'
import { findUsableKey } from '../dist/server/services/api-keys.js'
import { createSession } from '../dist/server/services/checkout-sessions.js'
import { startServer } from '../dist/server/start.js'

/** Under the per-key limit of 10,000 creations a minute, so preloading never meets a 429. */
const CREATES_PER_KEY = 2_000
const CREATES_PER_COMMIT = 500

const server = await startServer({
  port: 0,
  dataFile: process.argv[2],
  logRequests: false,
  log: (line) => process.stderr.write(`${line}\n`),
})
const { ctx } = server

/**
 * Creates sessions through the same service call as POST
 * /v1/checkout-sessions (session, expiry job and idempotency record each),
 * without HTTP, until the merchant has `total` sessions.
 */
async function preload({ secrets, total }) {
  const started = process.hrtime.bigint()
  const callers = secrets.map((plaintext) => {
    const key = findUsableKey(ctx, plaintext)
    return { merchant: ctx.store.get('merchants', key.merchantId), key, mode: key.mode }
  })
  const group = `${callers[0].merchant.id}:${callers[0].mode}`
  const existing = ctx.store.group('checkoutSessions', 'byMerchantMode', group).length
  for (let n = existing; n < total; n++) {
    const caller = callers[Math.floor(n / CREATES_PER_KEY) % callers.length]
    createSession(ctx, caller, { amount: 100 + (n % 100_000), currency: 'FJD', metadata: { order: String(n) } }, randomUUID())
    if ((n + 1) % CREATES_PER_COMMIT === 0) await ctx.store.commit()
  }
  await ctx.store.commit()
  return { created: Math.max(0, total - existing), ms: Number(process.hrtime.bigint() - started) / 1e6 }
}

process.on('message', async (message) => {
  try {
    if (message.type === 'preload') process.send({ type: 'preloaded', ...(await preload(message)) })
    else if (message.type === 'memory') {
      // bench/run.mjs starts this process with --expose-gc: resident memory is judged on live data, not on garbage awaiting collection.
      globalThis.gc?.()
      process.send({ type: 'memory', ...process.memoryUsage(), peakRss: process.resourceUsage().maxRSS * 1024 })
    }
    else if (message.type === 'close') {
      await server.close()
      process.disconnect()
    }
  } catch (error) {
    process.send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  }
})
process.send({ type: 'ready', baseUrl: server.baseUrl })
