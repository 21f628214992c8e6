// The baselines every figure is compared with: Express 5 doing the
// simulator's JSON parse and zod validation of a Checkout Session create, then
// 201, with no authentication and no storage. Same process arrangement as
// bench/sim-server.mjs, so the two differ only in what the route does.
//   node bench/baseline-server.mjs [data file]
// With a data file it is the durable baseline: each session is appended to
// the file as a JSON line, and its 201 waits until the line is on disk, by the
// simulator journal's own means (server/store/journal-file.ts): O_DSYNC
// writes into a file grown a mebibyte of zeros at a time, and one write for
// every line that arrived while the last was in flight. Issue 18's target
// compares creates with this one (docs/performance.md, "Two baselines").
import { Buffer } from 'node:buffer'
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import process from 'node:process'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { createCheckoutSessionRequestSchema } from '../dist/src/schemas/index.js'
import { JOURNAL_EXTENT_BYTES } from '../dist/server/store/journal-file.js'

const dataFile = process.argv[2]
const file = dataFile ? await open(dataFile, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC, 0o600) : null
/** Lines waiting for the next write, with the answers that wait for them. */
let waiting = []
let writing = false
/** Where the lines end, and where the zeros written ahead of them end. */
let written = 0
let extentEnd = 0

async function writeWaiting() {
  writing = true
  while (waiting.length > 0) {
    const batch = waiting
    waiting = []
    const lines = Buffer.from(batch.map(({ line }) => line).join(''))
    const start = written
    const end = start + lines.length
    // Past the zeros: the lines and the next extent's zeros in one write, so no write but that one changes the file's size.
    const bytes = end <= extentEnd ? lines : Buffer.concat([lines], Math.ceil(end / JOURNAL_EXTENT_BYTES) * JOURNAL_EXTENT_BYTES - start)
    try {
      for (let at = 0; at < bytes.length; ) at += (await file.write(bytes, at, bytes.length - at, start + at)).bytesWritten
      written = end
      extentEnd = Math.max(extentEnd, start + bytes.length)
      for (const { done } of batch) done(null)
    } catch (error) {
      for (const { done } of batch) done(error)
    }
  }
  writing = false
}

/** Calls `done` once `line` is on disk (at once without a data file). */
function store(line, done) {
  if (!file) return done(null)
  waiting.push({ line, done })
  if (!writing) void writeWaiting()
}

const app = express()
app.use(express.json({ limit: '1mb' }))
app.post('/v1/checkout-sessions', (req, res) => {
  const parsed = createCheckoutSessionRequestSchema.safeParse(req.body ?? {})
  if (!parsed.success) {
    res.status(400).json({ error: { code: 'invalid_request', message: parsed.error.issues[0]?.message ?? 'invalid' } })
    return
  }
  // A body of about the simulator's size, so both answers cost the same to send.
  // Serialized once, for the file and the answer, as the simulator answers with the text it journalled.
  const text = JSON.stringify({ id: `cs_${randomUUID()}`, status: 'pending', mode: 'test', currency: 'FJD', ...parsed.data })
  store(`${text}\n`, (error) => {
    if (error) res.status(500).json({ error: { code: 'storage_error', message: error.message } })
    else res.status(201).type('json').send(text)
  })
})
const server = app.listen(0, '127.0.0.1', () => {
  process.send({ type: 'ready', baseUrl: `http://127.0.0.1:${server.address().port}` })
})
process.on('message', (message) => {
  if (message.type === 'cpu') process.send({ type: 'cpu', ...process.cpuUsage() })
  if (message.type !== 'close') return
  server.close(() => process.disconnect())
  server.closeAllConnections()
})
// bench/run.mjs stopped without asking (Ctrl-C, a kill, a failure): stop too.
process.once('disconnect', () => {
  server.close()
  server.closeAllConnections()
})
