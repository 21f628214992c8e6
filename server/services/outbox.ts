import type { Email, Mode } from '../../src/schemas/index.js'
import type { ServiceContext } from '../context.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'
import type { EmailRecord } from '../domain/records.js'

export type { EmailRecord } from '../domain/records.js'

/**
 * The simulator never sends mail: every e-mail the service would send lands
 * in the outbox, where `GET /_sim/emails` (and later the dashboard) shows it.
 */
export function sendEmail(ctx: ServiceContext, merchantId: string, mode: Mode, email: Omit<Email, 'id' | 'createdAt' | 'mode'>): EmailRecord {
  const record: EmailRecord = { ...email, id: newId('em'), merchantId, mode, createdAt: ctx.clock.now(merchantId) }
  ctx.store.put('emails', record)
  return record
}

export function listEmails(ctx: ServiceContext, merchantId: string, mode: Mode): Email[] {
  return ctx.store
    .group('emails', 'byMerchantMode', merchantModeGroup(merchantId, mode))
    .map((id) => ctx.store.get('emails', id))
    .filter((email): email is EmailRecord => email !== undefined)
    .reverse()
    .map(({ merchantId: _merchantId, ...email }) => email)
}
