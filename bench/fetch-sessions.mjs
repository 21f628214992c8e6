// The yardstick for `bula sessions list`'s cold start: the same GET with
// fetch from a one-file script, on the same Node, so the ratio says what
// Bula's own start costs (docs/performance.md).
/* global fetch */
const response = await fetch(`${process.env.BULA_BASE_URL}/v1/checkout-sessions`, {
  headers: { authorization: `Bearer ${process.env.BULA_API_KEY}` },
})
const body = await response.json()
process.stdout.write(`${body.data.length} sessions\n`)
