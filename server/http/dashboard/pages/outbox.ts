import type { Router } from 'express'
import { notFound } from '../../../../src/errors.js'
import type { Email } from '../../../../src/schemas/index.js'
import { listEmails } from '../../../services/outbox.js'
import { safe } from '../../../templates.js'
import { dashPath, type Dash, type DashboardKit } from '../kit.js'
import { formatTime } from '../../../../src/time.js'

/**
 * The stored HTML is the merchant's e-mail, shown in a sandboxed frame: no
 * script, no requests out (an e-mail's remote images would be a tracking
 * pixel), inline styles only, and framed by the dashboard alone.
 */
const EMAIL_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'self'"

const KIND_LABELS: Record<Email['kind'], string> = { receipt: 'Receipt', invoice: 'Invoice' }

const emailPath = (id: string): string => `/outbox/${encodeURIComponent(id)}`
/** An attachment by its place in the e-mail: file names need not be unique, nor safe in a path. */
const attachmentPath = (id: string, index: number): string => `${emailPath(id)}/attachments/${index}`

/** A file name for Content-Disposition: the e-mail's own, with anything that could break the header replaced. */
const headerFilename = (name: string): string => name.replace(/[^\w. ()-]/g, '_') || 'attachment'

/** Outbox: the e-mails the service would have sent (receipts, invoices) in the mode on show, each as the customer would see it. */
export function registerOutboxPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const emailsOf = (dash: Dash): Email[] => listEmails(ctx, dash.caller.merchant.id, dash.caller.mode)
  const emailOf = (dash: Dash, id: string): Email => {
    const email = emailsOf(dash).find((candidate) => candidate.id === id)
    if (!email) throw notFound('e-mail')
    return email
  }

  kit.page(router, '/outbox', (_req, dash) => {
    const { mode } = dash.caller
    return {
      title: 'Outbox',
      section: 'outbox',
      content: kit.render('outbox-page', {
        mode,
        emails: kit.table(
          ['To', 'Subject', 'Kind', 'Sent'],
          emailsOf(dash).map((email) => [kit.freeText(email.to), kit.freeText(kit.link(emailPath(email.id), email.subject)), KIND_LABELS[email.kind], formatTime(email.createdAt)]),
          `No e-mails in ${mode} mode yet.`,
        ),
      }),
    }
  })

  kit.page(router, '/outbox/:id', (req, dash) => {
    const email = emailOf(dash, String(req.params.id))
    const related = email.kind === 'receipt' ? `/sessions/${encodeURIComponent(email.relatedId)}` : `/invoices/${encodeURIComponent(email.relatedId)}`
    return {
      title: email.subject,
      section: 'outbox',
      content: kit.render('outbox-email', {
        back: kit.link('/outbox', 'Back to the Outbox'),
        subject: email.subject,
        to: email.to,
        kind: KIND_LABELS[email.kind],
        sentAt: formatTime(email.createdAt),
        related: kit.link(related, email.kind === 'receipt' ? `Checkout Session ${email.relatedId}` : `Invoice ${email.relatedId}`),
        attachments:
          email.attachments.length === 0
            ? safe('')
            : kit.render('email-attachments', {
                list: kit.table(
                  ['File', 'Type', 'Size'],
                  email.attachments.map((file, index) => [
                    kit.render('attachment-link', { href: dashPath(attachmentPath(email.id, index)), filename: file.filename }),
                    file.contentType,
                    `${file.bytes.toLocaleString('en-US')} bytes`,
                  ]),
                  'No attachments.',
                ),
              }),
        htmlSource: dashPath(`${emailPath(email.id)}/html`),
        text: email.text,
      }),
    }
  })

  // An attachment's bytes, as the customer would save them: only the signed-in merchant's e-mails, of the mode on show.
  kit.resource(router, '/outbox/:id/attachments/:index', (req, res, dash) => {
    const email = emailOf(dash, String(req.params.id))
    const index = String(req.params.index)
    const file = /^(0|[1-9][0-9]{0,3})$/.test(index) ? email.attachments[Number(index)] : undefined
    if (!file) throw notFound('attachment')
    // Never shown in the dashboard's origin, whatever its type says: saved as a file, and sandboxed if opened.
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox")
    res.setHeader('Content-Disposition', `attachment; filename="${headerFilename(file.filename)}"`)
    res.type(file.contentType).send(Buffer.from(file.contentBase64, 'base64'))
  })

  // The frame's source: not a page of the layout, but still only with a session.
  kit.resource(router, '/outbox/:id/html', (req, res, dash) => {
    const email = emailOf(dash, String(req.params.id))
    res.setHeader('Content-Security-Policy', EMAIL_CONTENT_SECURITY_POLICY)
    res.setHeader('X-Frame-Options', 'SAMEORIGIN')
    res.type('html').send(email.html)
  })
}
