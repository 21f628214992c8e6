import type { Mode } from '../../../src/schemas/index.js'
import type { ApiKeyRecord } from '../../domain/api-key.js'
import { newToken } from '../../ids.js'

/** A one-time login link lives this long: long enough to reach a browser, short enough to be useless in a log. */
export const LOGIN_LINK_TTL_MS = 5 * 60_000
/** A dashboard session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000

/** A message shown once on the next page: the outcome of a form, an error, or a secret shown only now. */
export interface Flash {
  tone: 'ok' | 'error'
  text: string
  /** Lines under the text (what a clock advance ran, the fields of an error). */
  details?: string[]
  /** A plaintext key or webhook secret, shown once. */
  secret?: string
}

/** A form the simulator refused, as it was sent, so that its page can show it again with what was typed. */
export interface TypedForm {
  /** The form's action under the dashboard (`/invoices/12/edit`): only that form takes the values back. */
  action: string
  /** Its fields, without the CSRF token and the way back; files are not kept (a browser cannot refill a file input). */
  fields: Record<string, string>
}

export interface DashboardSession {
  /** The cookie's value: 256 random bits. */
  readonly id: string
  readonly merchantId: string
  /** The key signed in with, as it was then: the Caller's key (rate limits count per key). */
  readonly key: ApiKeyRecord
  mode: Mode
  /**
   * Whether this session may show live data: signed in with a live key, or it approved verification itself
   * (and so was just shown the live keys). A test key alone never reaches live data, as it never mints live keys.
   */
  liveAccess: boolean
  /** Every form carries it; a POST without it is refused. */
  readonly csrfToken: string
  expiresAt: number
  flash: Flash | null
  /** Shown once, on the next page, like the flash. */
  typed: TypedForm | null
}

interface LoginLink {
  key: ApiKeyRecord
  expiresAt: number
}

/**
 * Dashboard sign-ins, in memory: a restart of the simulator signs everyone
 * out, as a restarted emulator UI does. Times are wall-clock, never the
 * merchant's clock, so advancing the clock by weeks keeps you signed in.
 */
export class DashboardSessions {
  private readonly links = new Map<string, LoginLink>()
  private readonly sessions = new Map<string, DashboardSession>()

  constructor(private readonly now: () => number) {}

  /** A link that signs in once, as the merchant of `key`, in the key's mode. */
  createLoginLink(key: ApiKeyRecord): { token: string; expiresAt: number } {
    this.prune()
    const token = newToken()
    const expiresAt = this.now() + LOGIN_LINK_TTL_MS
    this.links.set(token, { key, expiresAt })
    return { token, expiresAt }
  }

  /** Uses up the link whatever happens next, so a copied link never works twice. */
  redeemLoginLink(token: string): DashboardSession | undefined {
    const link = this.links.get(token)
    this.links.delete(token)
    if (!link || link.expiresAt <= this.now()) return undefined
    return this.start(link.key)
  }

  /** A session as the merchant of `key`, in the key's mode. */
  start(key: ApiKeyRecord): DashboardSession {
    this.prune()
    const session: DashboardSession = {
      id: newToken(),
      merchantId: key.merchantId,
      key,
      mode: key.mode,
      liveAccess: key.mode === 'live',
      csrfToken: newToken(),
      expiresAt: this.now() + SESSION_IDLE_MS,
      flash: null,
      typed: null,
    }
    this.sessions.set(session.id, session)
    return session
  }

  /** The live session with this id; each use extends it. */
  find(id: string): DashboardSession | undefined {
    const session = this.sessions.get(id)
    if (!session) return undefined
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(id)
      return undefined
    }
    session.expiresAt = this.now() + SESSION_IDLE_MS
    return session
  }

  end(id: string): void {
    this.sessions.delete(id)
  }

  private prune(): void {
    const now = this.now()
    for (const [token, link] of this.links) if (link.expiresAt <= now) this.links.delete(token)
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id)
  }
}
