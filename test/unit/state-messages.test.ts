import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { SESSION_STATE_WORDS, transitionSession, type CheckoutSessionRecord } from '../../server/domain/checkout-session.js'
import { INVOICE_STATE_WORDS, cannotPayMessage, transitionInvoice, type InvoiceRecord } from '../../server/domain/invoice.js'

// Issue 14: "This Checkout Session is already succeeded." Refusals name a state the way a sentence does.

/** A status used as if it were an adjective or a verb form it is not: "is succeeded", "is void", "is sent". */
const BROKEN = /\bis (already )?(succeeded|failed|cancelled|sent|paid|void|draft)\b/

function refusal(act: () => unknown): string {
  try {
    act()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('invalid_state')
    return (error as ApiError).message
  }
  throw new Error('expected a refusal')
}

const session = (status: CheckoutSessionRecord['status']) => ({ id: 'cs_1', status }) as CheckoutSessionRecord
const invoice = (status: InvoiceRecord['status']) => ({ invoiceId: 3, number: status === 'draft' ? null : 'INV-0003', status }) as InvoiceRecord

describe('invalid_state messages read as sentences', () => {
  it('names where a Checkout Session stands', () => {
    expect(refusal(() => transitionSession(session('succeeded'), 'cancelled', 0))).toBe(
      'Checkout Session cs_1 has already succeeded; only a pending session can be cancelled.',
    )
    expect(refusal(() => transitionSession(session('cancelled'), 'succeeded', 0))).toBe(
      'Checkout Session cs_1 was already cancelled; only a pending session can succeed.',
    )
    expect(refusal(() => transitionSession(session('failed'), 'failed', 0))).toBe('Checkout Session cs_1 has already failed; only a pending session can fail.')
    for (const words of Object.values(SESSION_STATE_WORDS)) expect(`This Checkout Session ${words}.`).not.toMatch(BROKEN)
  })

  it('names where an Invoice stands', () => {
    expect(refusal(() => transitionInvoice(invoice('void'), 'sent', 0))).toBe('Invoice 3 has been voided and cannot be sent.')
    expect(refusal(() => transitionInvoice(invoice('paid'), 'void', 0))).toBe('Invoice 3 has already been paid and cannot be voided.')
    expect(refusal(() => transitionInvoice(invoice('draft'), 'paid', 0))).toBe('Invoice 3 is still a draft and cannot be paid.')
    expect(cannotPayMessage(invoice('paid'))).toBe('Invoice INV-0003 has already been paid.')
    expect(cannotPayMessage(invoice('void'))).toBe('Invoice INV-0003 has been voided; it can no longer be paid.')
    expect(cannotPayMessage(invoice('draft'))).toBe('Invoice 3 is still a draft; send it before it can be paid.')
    for (const words of Object.values(INVOICE_STATE_WORDS)) expect(`Invoice 3 ${words}.`).not.toMatch(BROKEN)
  })
})
