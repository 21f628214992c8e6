import type { ChalkInstance } from 'chalk'
import { formatDuration } from '../duration.js'
import { formatTime, type Column } from '../cli/output.js'
import { withLaunchedCommands } from '../cli/launch-command.js'
import type { ApiFault, DoctorReport } from '../schemas/index.js'
import { plural } from '../plural.js'
import { printable } from '../terminal-text.js'

/** `error 503`, `delay 2s`, `reset`, `lose_response`. */
export function describeFaultAction(fault: ApiFault): string {
  if (fault.action === 'error') return `error ${fault.status}`
  if (fault.action === 'delay') return `delay ${formatDuration(fault.delayMs ?? 0)}`
  return fault.action
}

export const apiFaultColumns: ReadonlyArray<Column<ApiFault>> = [
  { header: 'ID', value: (fault) => fault.id },
  { header: 'ROUTE', value: (fault) => fault.route },
  { header: 'ACTION', value: describeFaultAction },
  { header: 'MATCHED', value: (fault) => `${fault.matched} of ${fault.times}` },
  { header: 'INJECTED', value: (fault) => String(fault.injected) },
  { header: 'PROBABILITY', value: (fault) => (fault.probability === 1 ? '1' : `${fault.probability} (seed ${fault.seed})`) },
  { header: 'CREATED', value: (fault) => formatTime(fault.createdAt) },
]

/**
 * `bula doctor`'s report for a person: each finding with its severity, the
 * rule, the evidence (time, ids, what happened) and the fix; then a line of
 * totals. Errors first, as the simulator lists them. The findings' text
 * comes from the server (notes quote paths and keys): shown printable(),
 * with the commands it quotes as this CLI was started.
 */
export function formatDoctorReport(report: DoctorReport, colors: ChalkInstance): string {
  const window = report.since === null ? 'everything the simulator still has' : `since ${formatTime(report.since)}`
  const { checked } = report
  const lines = [
    colors.dim(
      `Checked ${report.mode} mode, ${window}: ${plural(checked.requests, 'request')} from your integration` +
        `${checked.bulaCliRequests === 0 ? '' : ` (${checked.bulaCliRequests} from the bula CLI left out)`}, ${plural(checked.events, 'event')}, ` +
        `${plural(checked.deliveries, 'delivery', 'deliveries')}, ${plural(checked.checkoutSessions, 'Checkout Session')}, ${plural(checked.webhookEndpoints, 'webhook endpoint')}.`,
    ),
  ]
  for (const finding of report.findings) {
    const label = finding.severity === 'error' ? colors.red.bold('ERROR') : colors.yellow.bold('WARNING')
    lines.push('', `${label} ${colors.bold(printable(finding.title))} ${colors.dim(`[${printable(finding.check)}]`)}`, `  Rule: ${printable(withLaunchedCommands(finding.rule))}`, '  Evidence:')
    for (const item of finding.evidence) {
      const ids = printable([item.requestId, item.eventId, item.objectId].filter((id) => id !== null).join(' '))
      lines.push(`    ${item.at === null ? '' : `${formatTime(item.at)}  `}${printable(item.note)}${ids === '' ? '' : colors.dim(`  (${ids})`)}`)
    }
    lines.push(`  Fix: ${printable(withLaunchedCommands(finding.fix))}`)
  }
  lines.push('')
  if (report.findings.length === 0) lines.push(colors.green('No findings: nothing in this traffic breaks a rule doctor checks.'))
  else {
    const totals = `${report.errors} ${report.errors === 1 ? 'error' : 'errors'}, ${report.warnings} ${report.warnings === 1 ? 'warning' : 'warnings'}.`
    lines.push(report.errors > 0 ? colors.red(totals) : colors.yellow(totals))
  }
  return lines.join('\n')
}
