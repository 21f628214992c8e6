import type { Request, Router } from 'express'
import { formatDuration, parseDuration } from '../../../../src/duration.js'
import type { DoctorFinding } from '../../../../src/schemas/index.js'
import { doctorReport } from '../../../services/doctor.js'
import { dashPath, type DashboardKit, type PageHandler } from '../kit.js'
import { formatTime } from '../../../../src/time.js'
import { invalidRequest } from '../../../../src/errors.js'
import { plural } from '../../../../src/plural.js'

/** The windows the page offers, as `bula doctor --since` writes them; empty is everything. */
const WINDOWS = ['15m', '1h', '1d', '']

/** `?since=1h`, one of the offered windows, or empty (or none) for everything; any other value is 400 naming it, as on the other pages. */
function sinceOf(req: Request): string {
  const since = typeof req.query.since === 'string' ? req.query.since : ''
  if (!WINDOWS.includes(since)) throw invalidRequest('Invalid `since`: choose 15m, 1h or 1d, or leave it empty for everything kept.', 'since')
  return since
}

/** Doctor (docs/faults-and-doctor.md): `bula doctor`'s report of the mode on show, in the window chosen. */
export function registerDoctorPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const finding = (item: DoctorFinding) =>
    kit.render('doctor-finding', {
      severity: kit.badge(item.severity, item.severity === 'error' ? 'bad' : 'wait'),
      title: item.title,
      check: item.check,
      rule: item.rule,
      evidence: kit.table(
        ['Time', 'What happened', 'Ids'],
        item.evidence.map((entry) => [
          entry.at === null ? '—' : formatTime(entry.at),
          entry.note,
          [entry.requestId, entry.eventId, entry.objectId].filter((id) => id !== null).join(' '),
        ]),
        'No evidence.',
      ),
      fix: item.fix,
    })

  const reportPage: PageHandler = (req, dash) => {
    const since = sinceOf(req)
    const report = doctorReport(ctx, dash.caller, { sinceMs: since === '' ? undefined : parseDuration(since) })
    const { checked } = report
    return {
      title: 'Doctor',
      section: 'doctor',
      content: kit.render('doctor-page', {
        mode: report.mode,
        action: dashPath('/doctor'),
        windows: kit.options(WINDOWS.map((window) => ({ value: window, label: window === '' ? 'Everything kept' : `Last ${formatDuration(parseDuration(window))}` })), since),
        summary:
          `${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')} ` +
          `from ${plural(checked.requests, 'request')} of your integration${checked.bulaCliRequests === 0 ? '' : ` (${checked.bulaCliRequests} from the bula CLI left out)`}, ` +
          `${plural(checked.events, 'event')}, ${plural(checked.deliveries, 'delivery', 'deliveries')}, ${plural(checked.checkoutSessions, 'Checkout Session')} and ` +
          `${plural(checked.webhookEndpoints, 'webhook endpoint')}${report.since === null ? '' : ` since ${formatTime(report.since)}`}.`,
        findings: report.findings.length === 0 ? kit.render('empty', { text: 'No findings: nothing in this traffic breaks a rule doctor checks.' }) : kit.join(report.findings.map(finding)),
      }),
    }
  }
  kit.page(router, '/doctor', reportPage, { query: ['since'], values: sinceOf })
}
