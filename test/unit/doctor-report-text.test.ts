import { Chalk } from 'chalk'
import { describe, expect, it } from 'vitest'
import { doctorReportSchema } from '../../src/schemas/index.js'
import { EXAMPLES } from '../../src/schemas/examples.js'
import { formatDoctorReport } from '../../src/ui/faults-and-doctor.js'

const plain = new Chalk({ level: 0 })

// `bula doctor` said "1 events"; its line of totals counts each noun as the dashboard's Doctor page does.
describe('bula doctor\'s line of totals', () => {
  const report = (count: number) => {
    const example = doctorReportSchema.parse(EXAMPLES.doctorReportSchema)
    const checked = { requests: count, bulaCliRequests: 0, events: count, deliveries: count, checkoutSessions: count, webhookEndpoints: count }
    return formatDoctorReport({ ...example, since: null, checked }, plain).split('\n')[0]
  }

  it('writes one of each in the singular and other counts in the plural', () => {
    expect(report(1)).toBe('Checked test mode, everything the simulator still has: 1 request from your integration, 1 event, 1 delivery, 1 Checkout Session, 1 webhook endpoint.')
    expect(report(2)).toBe('Checked test mode, everything the simulator still has: 2 requests from your integration, 2 events, 2 deliveries, 2 Checkout Sessions, 2 webhook endpoints.')
    expect(report(0)).toContain(': 0 requests from your integration, 0 events, 0 deliveries, 0 Checkout Sessions, 0 webhook endpoints.')
  })
})
