import { describe, expect, it } from 'vitest'
import type { ApiKeyRecord } from '../../server/domain/api-key.js'
import { DashboardSessions, LOGIN_LINK_TTL_MS, SESSION_IDLE_MS } from '../../server/http/dashboard/sessions.js'

const KEY: ApiKeyRecord = {
  id: 'key_1',
  merchantId: 'mer_1',
  type: 'secret',
  mode: 'test',
  hash: 'h',
  last4: 'abcd',
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null,
}

function sessionsAt(start: number) {
  const clock = { now: start }
  return { clock, sessions: new DashboardSessions(() => clock.now) }
}

describe('dashboard login links', () => {
  it('sign in once, as the key\'s merchant and mode, with fresh random tokens', () => {
    const { sessions } = sessionsAt(1_000)
    const link = sessions.createLoginLink(KEY)
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(link.expiresAt).toBe(1_000 + LOGIN_LINK_TTL_MS)
    const session = sessions.redeemLoginLink(link.token)
    expect(session).toMatchObject({ merchantId: 'mer_1', mode: 'test', key: KEY, flash: null })
    expect(session!.id).not.toBe(link.token)
    expect(session!.csrfToken).not.toBe(session!.id)
    expect(sessions.redeemLoginLink(link.token)).toBeUndefined()
    expect(sessions.createLoginLink(KEY).token).not.toBe(link.token)
  })

  it('stop working when they expire, and an expired link is used up too', () => {
    const { clock, sessions } = sessionsAt(0)
    const link = sessions.createLoginLink(KEY)
    clock.now = LOGIN_LINK_TTL_MS
    expect(sessions.redeemLoginLink(link.token)).toBeUndefined()
    clock.now = 0
    expect(sessions.redeemLoginLink(link.token)).toBeUndefined()
  })

  it('refuse a token that was never issued', () => {
    expect(sessionsAt(0).sessions.redeemLoginLink('made-up')).toBeUndefined()
  })
})

describe('dashboard sessions', () => {
  it('last while used and end after the idle time', () => {
    const { clock, sessions } = sessionsAt(0)
    const session = sessions.start(KEY)
    clock.now = SESSION_IDLE_MS - 1
    expect(sessions.find(session.id)).toBe(session)
    clock.now += SESSION_IDLE_MS - 1
    expect(sessions.find(session.id)).toBe(session)
    clock.now += SESSION_IDLE_MS
    expect(sessions.find(session.id)).toBeUndefined()
  })

  it('end on sign-out', () => {
    const { sessions } = sessionsAt(0)
    const session = sessions.start(KEY)
    sessions.end(session.id)
    expect(sessions.find(session.id)).toBeUndefined()
  })
})
