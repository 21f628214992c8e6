import { describe, expect, it } from 'vitest'
import { editDistance, nearest } from '../../src/cli/suggest.js'

describe('"did you mean" (src/cli/suggest.ts)', () => {
  it('counts edits, a swap of neighbours as one', () => {
    expect(editDistance('sessionz', 'sessions')).toBe(1)
    expect(editDistance('--ammount', '--amount')).toBe(1)
    expect(editDistance('invocies', 'invoices')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })

  it('suggests the nearest name only when it is near enough to be a typo', () => {
    const commands = ['sessions', 'sessions:list', 'invoices', 'keys', 'logs']
    expect(nearest('sessionz', commands)).toBe('sessions')
    expect(nearest('sessions:lst', commands)).toBe('sessions:list')
    expect(nearest('KEYS', commands)).toBe('keys')
    expect(nearest('deploy', commands)).toBeUndefined()
    // One edit is always allowed, so short names get a hint too; more than a third of the letters is another word.
    expect(nearest('lgs', commands)).toBe('logs')
    expect(nearest('kes', ['keys', 'kids'])).toBe('keys')
    expect(nearest('abcd', ['wxyz'])).toBeUndefined()
  })

  it('judges a subcommand of the right topic by the subcommand alone: a long topic name does not widen the allowance', () => {
    const commands = ['profiles', 'profiles:list', 'profiles:use', 'profiles:remove', 'sessions:create']
    // "foo" is three edits from "use": another word, though "profiles:foo" is long enough to allow four.
    expect(nearest('profiles:foo', commands)).toBeUndefined()
    expect(nearest('profiles:lst', commands)).toBe('profiles:list')
    expect(nearest('profiles:rmove', commands)).toBe('profiles:remove')
    // A mistyped topic is still judged whole.
    expect(nearest('sesions:create', commands)).toBe('sessions:create')
  })
})
