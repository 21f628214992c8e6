import type { Router } from 'express'
import {
  MAX_INVOICE_NUMBER,
  payoutScheduleSchema,
  rejectVerificationRequestSchema,
  submitVerificationRequestSchema,
  updateSettingsRequestSchema,
  type PayoutSchedule,
  type Settings,
  type Verification,
} from '../../../../src/schemas/index.js'
import { describeDestination } from '../../../../src/payout-destination.js'
import { presentSettings, updateSettings } from '../../../services/settings.js'
import { approveVerification, getVerification, rejectVerification, submitVerification } from '../../../services/verification.js'
import { safe, type SafeHtml } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { dashPath, type ActionInput, type Dash, type DashboardKit } from '../kit.js'
import { formatTime } from '../../../../src/time.js'

const SCHEDULE_LABELS: Record<PayoutSchedule, string> = {
  daily: 'Daily',
  weekly: 'Weekly (Mondays)',
  fortnightly: 'Fortnightly (every other Monday)',
  monthly: 'Monthly (the 1st)',
  manual: 'Manual (only when you request one)',
}

const DESTINATION_TYPES = [
  { value: 'none', label: 'Not set (live payouts fail until one is set)' },
  { value: 'bank_account', label: 'Bank account' },
  { value: 'wallet', label: 'Mobile wallet' },
] as const

const WALLET_PROVIDERS = [
  { value: 'mpaisa', label: 'M-PAiSA' },
  { value: 'mycash', label: 'MyCash' },
] as const

const DOCUMENT_LABELS: Record<string, string> = {
  tinCardPhoto: 'TIN card photo',
  businessRegistration: 'Business registration',
  personalId: 'Personal ID',
}

const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp'

/** The on/off settings; the form lists the ones it shows, because a browser sends nothing for an unchecked box. */
const CHECKBOXES = ['receiptsEnabled', 'liveProviders'] as const

/** The form's numbers as numbers; anything else goes to the schema as it is, so its error names the field. */
const formInteger = (value: string): number | string => (/^\s*[0-9]+\s*$/.test(value) ? Number(value) : value)

/** The destination the form's fields describe; spaces inside numbers are how people type them, not part of them. */
function destinationOf(fields: Record<string, string>): unknown {
  const digits = (value: string | undefined) => value?.replace(/\s+/g, '')
  switch (fields.destinationType) {
    case 'none':
      return null
    case 'wallet':
      return { type: 'wallet', provider: fields.walletProvider, phone: digits(fields.walletPhone) }
    default:
      return {
        type: fields.destinationType,
        bankName: fields.bankName,
        accountName: fields.accountName,
        accountNumber: digits(fields.accountNumber),
      }
  }
}

/** The settings as the form's fields would send them: the form's values when nothing was typed. */
function settingsFormText(settings: Settings): Record<string, string> {
  const destination = settings.payoutDestination
  const bank = destination?.type === 'bank_account' ? destination : undefined
  const wallet = destination?.type === 'wallet' ? destination : undefined
  return {
    displayName: settings.displayName,
    vatNumber: settings.vatNumber ?? '',
    invoicePrefix: settings.invoicePrefix,
    invoiceNextNumber: String(settings.invoiceNextNumber),
    receiptsEnabled: String(settings.receiptsEnabled),
    payoutSchedule: settings.payoutSchedule,
    destinationType: destination?.type ?? 'none',
    bankName: bank?.bankName ?? '',
    accountName: bank?.accountName ?? '',
    accountNumber: bank?.accountNumber ?? '',
    walletProvider: wallet?.provider ?? 'mpaisa',
    walletPhone: wallet?.phone ?? '',
    liveProviders: String(settings.liveProviders),
  }
}

/** What the settings form sent, as the PATCH /_sim/settings body: only the fields the form had. */
function settingsPatch(fields: Record<string, string>): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  for (const name of ['displayName', 'invoicePrefix', 'payoutSchedule'] as const) {
    if (fields[name] !== undefined) patch[name] = fields[name]
  }
  // An emptied field removes the number.
  if (fields.vatNumber !== undefined) patch.vatNumber = fields.vatNumber.trim() === '' ? null : fields.vatNumber
  if (fields.invoiceNextNumber !== undefined) patch.invoiceNextNumber = formInteger(fields.invoiceNextNumber)
  const shown = (fields.checkboxes ?? '').split(' ')
  for (const name of CHECKBOXES) if (shown.includes(name)) patch[name] = fields[name] === 'true'
  if (fields.destinationType !== undefined) patch.payoutDestination = destinationOf(fields)
  return patch
}

/** An upload as the data URL the verification API takes; without a type the service tells the image by its bytes. */
const imageValue = (file: ActionInput['files'][string]): string =>
  file.type === '' ? file.bytes.toString('base64') : `data:${file.type};base64,${file.bytes.toString('base64')}`

/** Settings (the PATCH /_sim/settings fields) and verification for live mode (submit, and the reviewer's approve or reject). */
export function registerSettingsPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const checked = (on: boolean): SafeHtml => safe(on ? ' checked' : '')

  const settingsForm = (dash: Dash, settings: Settings): SafeHtml => {
    const { liveUnlocked } = dash.caller.merchant
    // What was typed when the last save was refused, else the settings as they are.
    const text = kit.typed(dash, '/settings') ?? settingsFormText(settings)
    const value = (name: string): string => text[name] ?? ''
    return kit.form(dash, {
      action: '/settings',
      submit: 'Save settings',
      className: 'stack-form',
      fields: kit.render('settings-fields', {
        mode: settings.mode,
        displayName: value('displayName'),
        vatNumber: value('vatNumber'),
        invoicePrefix: value('invoicePrefix'),
        invoiceNextNumber: value('invoiceNextNumber'),
        maxInvoiceNumber: String(MAX_INVOICE_NUMBER),
        checkboxes: liveUnlocked ? CHECKBOXES.join(' ') : 'receiptsEnabled',
        receiptsChecked: checked(value('receiptsEnabled') === 'true'),
        scheduleOptions: kit.options(
          payoutScheduleSchema.options.map((option) => ({ value: option, label: SCHEDULE_LABELS[option] })),
          value('payoutSchedule'),
        ),
        destinationOptions: kit.options(DESTINATION_TYPES, value('destinationType')),
        bankName: value('bankName'),
        accountName: value('accountName'),
        accountNumber: value('accountNumber'),
        walletOptions: kit.options(WALLET_PROVIDERS, value('walletProvider')),
        walletPhone: value('walletPhone'),
        liveProviders: liveUnlocked
          ? kit.render('settings-live-providers', { checked: checked(value('liveProviders') === 'true') })
          : kit.render('settings-live-providers-locked', {}),
      }),
    })
  }

  const verificationForms = (dash: Dash, verification: Verification): SafeHtml => {
    switch (verification.status) {
      case 'pending':
        return kit.render('verification-review', {
          approveForm: kit.form(dash, {
            action: '/settings/verification/approve',
            submit: 'Approve',
            confirm: 'Approve verification and unlock live mode?',
          }),
          rejectForm: kit.form(dash, {
            action: '/settings/verification/reject',
            submit: 'Reject',
            style: 'danger',
            className: 'stack-form',
            fields: kit.render('verification-reason-field', { reason: kit.typed(dash, '/settings/verification/reject')?.reason ?? '' }),
          }),
        })
      case 'approved':
        return kit.render('verification-approved', {})
      default: {
        const business = dash.caller.merchant.tier === 'business'
        return kit.render('verification-submit', {
          form: kit.form(dash, {
            action: '/settings/verification',
            submit: 'Submit for review',
            multipart: true,
            className: 'stack-form',
            fields: kit.render('verification-submit-fields', {
              // The photos must be chosen again: a browser never lets a page fill in a file.
              tin: kit.typed(dash, '/settings/verification')?.tin ?? '',
              imageTypes: IMAGE_TYPES,
              documentField: business ? 'businessRegistration' : 'personalId',
              documentLabel: business ? 'Business registration certificate' : 'Personal ID',
              documentHint: business
                ? 'A photo or scan of the business registration certificate.'
                : 'A photo of your passport, driver\'s licence or voter ID card.',
            }),
          }),
        })
      }
    }
  }

  const verificationSection = (dash: Dash): SafeHtml => {
    const verification = getVerification(ctx, dash.caller)
    const time = (ms: number | null): string => (ms === null ? '-' : formatTime(ms))
    return kit.render('verification-section', {
      tier: dash.caller.merchant.tier,
      status: kit.statusBadge(verification.status),
      tin: verification.tin ?? '-',
      submittedAt: time(verification.submittedAt),
      reviewedAt: time(verification.reviewedAt),
      rejectionReason: verification.rejectionReason ?? '-',
      documents: kit.table(
        ['Document', 'Type', 'Size', 'SHA-256'],
        Object.entries(verification.documents).map(([name, document]) => [
          DOCUMENT_LABELS[name] ?? name,
          document.contentType,
          `${document.bytes} bytes`,
          kit.render('settings-code', { text: document.sha256 }),
        ]),
        'No documents submitted.',
      ),
      forms: verificationForms(dash, verification),
    })
  }

  kit.page(router, '/settings', (_req, dash) => {
    const settings = presentSettings(dash.caller.merchant, dash.caller.mode)
    return {
      title: 'Settings',
      section: 'settings',
      content: kit.render('settings-page', {
        form: settingsForm(dash, settings),
        destination: describeDestination(settings.payoutDestination),
        verification: verificationSection(dash),
      }),
    }
  })

  kit.action(router, '/settings', (_req, dash, input) => {
    const settings = updateSettings(ctx, dash.caller, parseWith(updateSettingsRequestSchema, settingsPatch(input.fields)))
    return {
      redirect: dashPath('/settings'),
      flash: { tone: 'ok', text: `Settings saved. The next ${settings.mode} invoice number is ${settings.invoiceNextNumber}.` },
    }
  })

  kit.action(
    router,
    '/settings/verification',
    (_req, dash, { fields, files }) => {
      const documents = Object.fromEntries(
        Object.keys(DOCUMENT_LABELS).flatMap((name) => (files[name] ? [[name, imageValue(files[name])]] : [])),
      )
      submitVerification(ctx, dash.caller, parseWith(submitVerificationRequestSchema, { tin: fields.tin?.trim(), ...documents }))
      return {
        redirect: dashPath('/settings'),
        flash: { tone: 'ok', text: 'Verification submitted: it is pending review. Approve or reject it below, as the reviewer would.' },
      }
    },
    { multipart: true },
  )

  kit.action(router, '/settings/verification/approve', (_req, dash) => {
    const { keys } = approveVerification(ctx, dash.caller)
    // This session has just been shown the live keys, so it may show live data too.
    dash.session.liveAccess = true
    return {
      redirect: dashPath('/settings'),
      flash: {
        tone: 'ok',
        text: 'Verification approved: live mode is unlocked and live Providers are on. Below is your first live secret key; "Switch to live data" in the top bar shows live data.',
        details: [`Your first live publishable key: ${keys.publishable}`],
        secret: keys.secret,
      },
    }
  })

  kit.action(router, '/settings/verification/reject', (_req, dash, input) => {
    const { reason } = parseWith(rejectVerificationRequestSchema, { reason: input.fields.reason })
    rejectVerification(ctx, dash.caller, reason)
    return { redirect: dashPath('/settings'), flash: { tone: 'ok', text: 'Verification rejected. The merchant can correct it and submit again.' } }
  })
}
