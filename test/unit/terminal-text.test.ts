import { Chalk } from 'chalk'
import { describe, expect, it } from 'vitest'
import type { ForwardResult } from '../../src/listen/forward.js'
import type { ListenReady } from '../../src/listen/listen.js'
import { deliveryColumns, describeDisconnection, describeReady } from '../../src/listen/report.js'
import { formatRequestLine } from '../../src/logs/report.js'
import { EXAMPLES } from '../../src/schemas/examples.js'
import { doctorReportSchema, type Delivery, type RequestLogEntry } from '../../src/schemas/index.js'
import { printable } from '../../src/terminal-text.js'
import { formatDoctorReport } from '../../src/ui/faults-and-doctor.js'
import { describeDelivery } from '../../src/ui/webhook-fields.js'

/** Every character a terminal may act on instead of showing: what printable() must never let through. */
// eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

describe('printable', () => {
  it('shows escape sequences as text: a title change, a screen clear, a colour', () => {
    expect(printable('\u001b]0;pwned\u0007')).toBe('\\u001b]0;pwned\\u0007')
    expect(printable('\u001b[2J\u001b[31mRED')).toBe('\\u001b[2J\\u001b[31mRED')
  })

  it('escapes every C0 control, DEL and every C1 control (U+009B is a one-byte CSI)', () => {
    for (let code = 0; code <= 0x9f; code += 1) {
      if (code >= 0x20 && code < 0x7f) continue
      const shown = printable(`a${String.fromCharCode(code)}b`)
      expect(shown, `U+${code.toString(16)}`).not.toMatch(UNSAFE)
      expect(shown.startsWith('a\\') && shown.endsWith('b'), shown).toBe(true)
    }
    expect(printable('\u007f')).toBe('\\u007f')
    expect(printable('\u009b2J')).toBe('\\u009b2J')
  })

  it('shows line breaks and tabs escaped, so that a value stays on its line and cannot fake another', () => {
    expect(printable('one\ntwo\r\tthree')).toBe('one\\ntwo\\r\\tthree')
  })

  it('escapes the bidi controls, which reorder what a line seems to say', () => {
    const bidi = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']
    for (const control of bidi) {
      const code = control.codePointAt(0)!.toString(16).padStart(4, '0')
      expect(printable(`x${control}y`)).toBe(`x\\u${code}y`)
    }
  })

  it('leaves ordinary text alone: Fijian names with macrons, other scripts, emoji, punctuation', () => {
    for (const text of ['Kava Kitchen Ltd', "Mere's Masi Prints", 'Nāsinu Vākatalai', 'Māmā Sā', 'Ratu Sukuna Rd, Suva', 'हिन्दी दुकान', '日本語', 'مرحبا', '🥥🌺 Bula!', 'FJ$1,234.50 · 50% off — “quoted”', 'a\\u001b stays as typed', '']) {
      expect(printable(text)).toBe(text)
    }
  })
})

/** A hostile value as a server or a receiver could send it: a title change, a screen clear, a one-byte CSI, a right-to-left override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202e'
const plain = new Chalk({ level: 0 })

/** Each line of a printer's text holds no control character: the printer's own line breaks are the only ones. */
const expectPrintableLines = (text: string): void => {
  for (const line of text.split('\n')) expect(line).not.toMatch(UNSAFE)
}

describe('the CLI\'s printers outside fields and tables show data printable()', () => {
  it('logs tail: the path, method, key and ids of a request', () => {
    const entry: RequestLogEntry = {
      at: 0, mode: 'test', method: `GET${HOSTILE}`, path: `/v1/x${HOSTILE}`, status: 200, latencyMs: 1,
      idempotencyKey: `key${HOSTILE}`, requestId: `req_${HOSTILE}`, fault: { id: `flt_${HOSTILE}`, action: 'reset' } as RequestLogEntry['fault'],
    }
    expectPrintableLines(formatRequestLine(entry, plain))
  })

  it('listen: who is heard, each delivery and why the stream dropped', () => {
    const ready: ListenReady = {
      forwardTo: `http://localhost/${HOSTILE}`, secret: 'whsec_x', baseUrl: `http://sim/${HOSTILE}`, merchantId: `ms_${HOSTILE}`,
      merchantName: `Shop ${HOSTILE}`, mode: 'test', events: [`type${HOSTILE}`],
    }
    expectPrintableLines(describeReady(ready).join('\n'))
    const result: ForwardResult = { at: 0, eventId: `evt_${HOSTILE}`, type: `type${HOSTILE}`, createdAt: 0, status: null, latencyMs: 1, error: `refused${HOSTILE}`, response: '' }
    expect(deliveryColumns(result, plain)).not.toMatch(UNSAFE)
    expect(describeDisconnection(`gone${HOSTILE}`, 1000)).not.toMatch(UNSAFE)
  })

  it('doctor: a finding\'s title, rule, evidence and fix', () => {
    const report = doctorReportSchema.parse(EXAMPLES.doctorReportSchema)
    const [finding] = report.findings
    const hostile = {
      ...report,
      findings: [{ ...finding!, check: `c${HOSTILE}`, title: `t${HOSTILE}`, rule: `r${HOSTILE}`, fix: `f${HOSTILE}`, evidence: finding!.evidence.map((item) => ({ ...item, note: `n${HOSTILE}`, objectId: `o${HOSTILE}` })) }],
    }
    expectPrintableLines(formatDoctorReport(hostile, plain))
  })

  it('events get: a delivery\'s URL', () => {
    const delivery = { id: `dlv_${HOSTILE}`, endpointId: 'we_1', url: `https://x.test/${HOSTILE}`, status: 'pending', nextAttemptAt: null } as unknown as Delivery
    expect(describeDelivery(delivery)).not.toMatch(UNSAFE)
  })
})
