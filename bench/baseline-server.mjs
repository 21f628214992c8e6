// The baseline every figure is compared with: Express 5 doing the
// simulator's JSON parse and zod validation of a Checkout Session create, then
// 201, with no authentication and no storage. Same process arrangement as
// bench/sim-server.mjs, so the two differ only in what the route does.
//   node bench/baseline-server.mjs
import process from 'node:process'
import { randomUUID } from 'node:crypto'
import express from 'express'
import { createCheckoutSessionRequestSchema } from '../dist/src/schemas/index.js'

const app = express()
app.use(express.json({ limit: '1mb' }))
app.post('/v1/checkout-sessions', (req, res) => {
  const parsed = createCheckoutSessionRequestSchema.safeParse(req.body ?? {})
  if (!parsed.success) {
    res.status(400).json({ error: { code: 'invalid_request', message: parsed.error.issues[0]?.message ?? 'invalid' } })
    return
  }
  // A body of about the simulator's size, so both answers cost the same to send.
  res.status(201).json({ id: `cs_${randomUUID()}`, status: 'pending', mode: 'test', currency: 'FJD', ...parsed.data })
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
