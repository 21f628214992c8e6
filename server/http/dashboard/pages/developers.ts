import type { Router } from 'express'
import { createApiKeyRequestSchema, type ApiKey } from '../../../../src/schemas/index.js'
import { ROTATION_OVERLAP_MS } from '../../../domain/api-key.js'
import { createKey, listKeys, revokeKey, rotateKey } from '../../../services/api-keys.js'
import { safe, type SafeHtml } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { dashPath, type Dash, type DashboardKit } from '../kit.js'
import { formatTime } from '../../../../src/time.js'

const OVERLAP_HOURS = ROTATION_OVERLAP_MS / 3_600_000

/** Developers: the API keys of the mode on show, and creating, rotating and revoking them. */
export function registerDevelopersPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const keyPath = (id: string, action: 'rotate' | 'revoke'): string => `/developers/keys/${encodeURIComponent(id)}/${action}`

  const actionsOf = (dash: Dash, key: ApiKey): SafeHtml => {
    const forms: SafeHtml[] = []
    // Only a key that has not been rotated yet can be rotated (rotateKey says so too).
    if (key.status === 'active') {
      forms.push(kit.form(dash, { action: keyPath(key.id, 'rotate'), submit: 'Rotate', style: 'secondary' }))
    }
    if (key.status === 'active' || key.status === 'expiring') {
      forms.push(
        kit.form(dash, {
          action: keyPath(key.id, 'revoke'),
          submit: 'Revoke',
          style: 'danger',
          confirm: `Revoke ${key.masked}? Requests with it fail from now on.`,
        }),
      )
    }
    return forms.length === 0 ? safe('') : kit.render('key-actions', { forms: kit.join(forms) })
  }

  const endOf = (key: ApiKey): string => {
    if (key.revokedAt !== null) return `Revoked ${formatTime(key.revokedAt)}`
    return key.expiresAt === null ? 'Does not expire' : formatTime(key.expiresAt)
  }

  kit.page(router, '/developers', (_req, dash) => {
    const { mode } = dash.caller
    const keys = listKeys(ctx, dash.caller)
    return {
      title: 'Developers',
      section: 'developers',
      content: kit.render('developers-page', {
        mode,
        overlapHours: OVERLAP_HOURS,
        keys: kit.table(
          ['Type', 'Key', 'Status', 'Created', 'Expires', 'Actions'],
          keys.map((key) => [
            key.type === 'secret' ? 'Secret' : 'Publishable',
            kit.render('key-masked', {
              masked: key.masked,
              note: key.id === dash.session.key.id ? kit.render('key-signed-in-note', {}) : safe(''),
            }),
            kit.statusBadge(key.status),
            formatTime(key.createdAt),
            endOf(key),
            actionsOf(dash, key),
          ]),
          `No ${mode} keys.`,
        ),
        createForm: kit.form(dash, {
          action: '/developers/keys',
          submit: `Create ${mode} key`,
          className: 'stack-form compact',
          fields: kit.render('key-type-field', {
            options: kit.options(
              [
                { value: 'secret', label: 'Secret key (sk_…)' },
                { value: 'publishable', label: 'Publishable key (pk_…)' },
              ],
              kit.typed(dash, '/developers/keys')?.type ?? 'secret',
            ),
          }),
        }),
      }),
    }
  })

  kit.action(router, '/developers/keys', (_req, dash, input) => {
    const key = createKey(ctx, dash.caller, parseWith(createApiKeyRequestSchema, { type: input.fields.type }))
    return {
      redirect: dashPath('/developers'),
      flash: { tone: 'ok', text: `Created ${key.type} key ${key.masked} for ${key.mode} mode.`, secret: key.plaintext },
    }
  })

  kit.action(router, '/developers/keys/:id/rotate', (req, dash) => {
    const { key, previous } = rotateKey(ctx, dash.caller, String(req.params.id))
    return {
      redirect: dashPath('/developers'),
      flash: {
        tone: 'ok',
        text: `Rotated ${previous.masked}. The new key ${key.masked} is below; the old one keeps working until ${formatTime(previous.expiresAt!)} (${OVERLAP_HOURS} hours on this merchant's clock), so you can deploy the new one first.`,
        secret: key.plaintext,
      },
    }
  })

  kit.action(router, '/developers/keys/:id/revoke', (req, dash) => {
    const key = revokeKey(ctx, dash.caller, String(req.params.id))
    return { redirect: dashPath('/developers'), flash: { tone: 'ok', text: `Revoked ${key.masked}: requests with it fail from now on.` } }
  })
}
