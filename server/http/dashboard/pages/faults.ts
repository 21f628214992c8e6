import type { Express, Router } from 'express'
import { API_FAULT_ACTIONS, API_FAULT_STATUSES } from '../../../../src/schemas/enums.js'
import { createApiFaultRequestSchema, type ApiFault, type ApiFaultAction } from '../../../../src/schemas/index.js'
import { ANY_ROUTE } from '../../../domain/api-faults.js'
import { safe, type SafeHtml } from '../../../templates.js'
import { checkFaultRoute } from '../../faults.js'
import { parseWith } from '../../validate.js'
import { dashPath, type Dash, type DashboardKit } from '../kit.js'
import { formatTime } from '../../../../src/time.js'

/** Requests a fault struck, newest first, shown on the page. */
const STRUCK_SHOWN = 25

const ACTION_LABELS: Record<ApiFaultAction, string> = {
  error: 'Error: answer a 5xx, change nothing',
  delay: 'Delay: answer late',
  reset: 'Reset: close the connection unanswered, change nothing',
  lose_response: 'Lose the answer: do the work, then close the connection unanswered',
}

const describeAction = (fault: ApiFault): string =>
  fault.action === 'error' ? `error ${fault.status}` : fault.action === 'delay' ? `delay ${fault.delayMs} ms` : fault.action

/** A form field as a number, or left out when empty. */
const numberField = (value: string | undefined): number | string | undefined => {
  const text = value?.trim() ?? ''
  return text === '' ? undefined : /^[0-9.]+$/.test(text) ? Number(text) : text
}

/**
 * API faults (docs/faults-and-doctor.md): the faults in force for the mode on
 * show, the requests they struck, and forms to add, remove and clear them,
 * calling what `/_sim/faults` calls.
 */
export function registerFaultsPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const removeForm = (dash: Dash, fault: ApiFault): SafeHtml =>
    kit.form(dash, { action: `/faults/${encodeURIComponent(fault.id)}/delete`, submit: 'Remove', style: 'danger' })

  kit.page(router, '/faults', (_req, dash) => {
    const { merchant, mode } = dash.caller
    const faults = ctx.apiFaults.list(merchant.id, mode)
    const struck = ctx.requestLog
      .list(merchant.id, mode, {})
      .filter((entry) => entry.fault !== null)
      .slice(0, STRUCK_SHOWN)
    return {
      title: 'API faults',
      section: 'faults',
      content: kit.render('faults-page', {
        mode,
        faults: kit.table(
          ['Route', 'Action', 'Matched', 'Struck', 'Probability', 'Added', ''],
          faults.map((fault) => [
            fault.route,
            describeAction(fault),
            `${fault.matched} of ${fault.times}`,
            String(fault.injected),
            fault.probability === 1 ? 'always' : `${fault.probability} (seed ${fault.seed})`,
            formatTime(fault.createdAt),
            removeForm(dash, fault),
          ]),
          `No API faults in force in ${mode} mode.`,
        ),
        clearForm:
          faults.length === 0
            ? safe('')
            : kit.form(dash, { action: '/faults/clear', submit: 'Remove every fault', style: 'danger', confirm: `Remove every API fault of ${mode} mode?` }),
        addForm: kit.form(dash, {
          action: '/faults',
          submit: 'Add fault',
          className: 'stack-form',
          fields: kit.render('fault-fields', {
            actions: kit.options(API_FAULT_ACTIONS.map((action) => ({ value: action, label: ACTION_LABELS[action] })), 'lose_response'),
            statuses: kit.options(API_FAULT_STATUSES.map((status) => ({ value: String(status), label: String(status) })), '503'),
          }),
        }),
        struck: kit.table(
          ['Time', 'Request', 'Status', 'Fault', 'Request id'],
          struck.map((entry) => [
            formatTime(entry.at),
            `${entry.method} ${entry.path}`,
            entry.status === 0 ? 'no answer' : entry.fault!.action === 'lose_response' ? `${entry.status}, answer lost` : String(entry.status),
            kit.badge(`${entry.fault!.action} ${entry.fault!.id}`, 'bad'),
            entry.requestId,
          ]),
          `No request of ${mode} mode has met a fault yet.`,
        ),
      }),
    }
  })

  kit.action(router, '/faults', (req, dash, input) => {
    const { fields } = input
    const action = fields.action
    const request = parseWith(createApiFaultRequestSchema, {
      route: fields.route?.trim() || ANY_ROUTE,
      action,
      status: action === 'error' ? numberField(fields.status) : undefined,
      delayMs: action === 'delay' ? numberField(fields.delayMs) : undefined,
      times: numberField(fields.times),
    })
    const route = checkFaultRoute(req.app as Express, request.route)
    const fault = ctx.apiFaults.add(dash.caller.merchant.id, dash.caller.mode, route, request, dash.now)
    return { redirect: dashPath('/faults'), flash: { tone: 'ok', text: `Added fault ${fault.id}: ${describeAction(fault)} on ${fault.route}, for the next ${fault.times} matching ${fault.times === 1 ? 'request' : 'requests'}.` } }
  })

  kit.action(router, '/faults/:id/delete', (req, dash) => {
    const id = String(req.params.id)
    ctx.apiFaults.remove(dash.caller.merchant.id, dash.caller.mode, id)
    return { redirect: dashPath('/faults'), flash: { tone: 'ok', text: `Removed fault ${id}.` } }
  })

  kit.action(router, '/faults/clear', (_req, dash) => {
    const count = ctx.apiFaults.clear(dash.caller.merchant.id, dash.caller.mode)
    return { redirect: dashPath('/faults'), flash: { tone: 'ok', text: `Removed ${count} ${count === 1 ? 'fault' : 'faults'}.` } }
  })
}
