import type { CaseContext } from '../context.js'
import { exchange, type ConformanceClient } from '../http.js'
import type { ConformanceCase } from '../types.js'

// What the cases read back from the target: only the fields they check.
export interface Session {
  id: string
  status: string
  mode: string
  amount: number
  currency: string
  hostedUrl: string
  metadata: Record<string, string>
  expiresAt: number
  invoiceNumber?: string
  quote?: { amount: number; currency: string; rate: string; asOf: number }
  [field: string]: unknown
}

export interface Invoice {
  id: number
  number: string | null
  status: string
  overdue: boolean
  mode: string
  url: string
  pdfUrl: string | null
  subtotal: number
  tax: number
  total: number
  taxLabel: string | null
  taxPercent: number
  sentAt: number | null
  paidAt: number | null
  [field: string]: unknown
}

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** The largest amount the spec allows: under FJD 5,000.00. */
export const MAX_AMOUNT = 499_999

/** Keeps the cases' declarations checked without repeating the type. */
export const defineCases = (cases: ConformanceCase[]): ConformanceCase[] => cases

/** A Checkout Session made with these fields (FJD 15.00 by default), expecting 201. */
export async function createSession(t: CaseContext, body: Record<string, unknown> = {}, client: ConformanceClient = t.api): Promise<Session> {
  const fields = 'quote' in body ? body : { amount: 1500, currency: 'FJD', ...body }
  return t.ok(await client.post('/v1/checkout-sessions', fields, { idempotencyKey: t.newKey() }), 201) as Session
}

/** A create request's answer, whatever it is. */
export const tryCreateSession = (t: CaseContext, body: Record<string, unknown>, client: ConformanceClient = t.api) =>
  client.post('/v1/checkout-sessions', body, { idempotencyKey: t.newKey() })

/** Today's date in Pacific/Fiji at this time, `YYYY-MM-DD`. */
export function fijiDate(ms: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Fiji', year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms)
}

/** `YYYY-MM-DD` plus whole days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10)
}

/** The target's now: the merchant's clock with `/_sim`, else this machine's. */
export async function targetNow(t: CaseContext): Promise<number> {
  return t.target.sim ? t.sim.now() : Date.now()
}

/** A valid CreateInvoiceRequest with these changes. */
export function invoiceBody(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerName: 'Conformance Customer',
    dueDate: addDays(fijiDate(Date.now()), 14),
    items: [{ description: 'Kava bowl', quantity: 2, unitPrice: 2500 }],
    ...changes,
  }
}

/** A draft Invoice, expecting 201. */
export async function createInvoice(t: CaseContext, changes: Record<string, unknown> = {}): Promise<Invoice> {
  return t.ok(await t.api.post('/v1/invoices', invoiceBody(changes), { idempotencyKey: t.newKey() }), 201) as Invoice
}

/** Sends a draft, expecting 200. */
export async function sendInvoice(t: CaseContext, id: number): Promise<Invoice> {
  return t.ok(await t.api.post(`/v1/invoices/${id}/send`, undefined, { idempotencyKey: t.newKey() })) as Invoice
}

/** Voids a sent Invoice, expecting 200. */
export async function voidInvoice(t: CaseContext, id: number): Promise<Invoice> {
  return t.ok(await t.api.post(`/v1/invoices/${id}/void`, undefined, { idempotencyKey: t.newKey() })) as Invoice
}

/** Each of these answers is refused with 400 `invalid_request`; `what` names the input in the message. */
export function expectInvalid(t: CaseContext, answers: readonly [what: string, answer: Awaited<ReturnType<ConformanceClient['get']>>][]): void {
  for (const [what, answer] of answers) t.expectError(answer, 400, 'invalid_request', what)
}

/** A page the customer opens (hostedUrl, an Invoice url): fetched without a key, recorded by status and type only. */
export async function openPage(t: CaseContext, url: string, init: { method?: string; form?: Record<string, string> } = {}) {
  const { response, text } = await exchange(
    url,
    {
      method: init.method ?? 'GET',
      headers: init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    },
    t.target.timeoutMs,
  )
  t.steps.push({
    request: { method: init.method ?? 'GET', path: '<page>', auth: 'none', ...(init.form ? { body: init.form } : {}) },
    response: { status: response.status, contentType: (response.headers.get('content-type') ?? '').split(';')[0]!.trim(), body: text ? '<text>' : undefined },
  })
  return { status: response.status, text, location: response.headers.get('location') }
}

/** Whether an answer's text holds this string anywhere. */
export const holds = (text: string, needle: string): boolean => text.includes(needle)
