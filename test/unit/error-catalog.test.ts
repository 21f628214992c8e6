import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { apiError, ERROR_CODES, type ErrorCode } from '../../server/domain/error-catalog.js'

// Errors are thrown by name (apiError('invalid_state', …)), their status
// taken from the one catalogue that /openapi.json describes.

const ROOT = path.resolve(import.meta.dirname, '../..')

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ file: path.join(dir, name), text: readFileSync(path.join(ROOT, dir, name), 'utf8') }))
}

const SIMULATOR = [...sources('server'), { file: 'src/errors.ts', text: readFileSync(path.join(ROOT, 'src', 'errors.ts'), 'utf8') }]

describe('the error catalogue', () => {
  it('gives apiError() the status of its code', () => {
    expect(apiError('invalid_state', 'Only a draft can be sent.')).toMatchObject({ status: 409, code: 'invalid_state', message: 'Only a draft can be sent.' })
    expect(apiError('rate_limited', 'Slow down.', { headers: { 'Retry-After': '3' } })).toMatchObject({ status: 429, headers: { 'Retry-After': '3' } })
    expect(apiError('invalid_request', 'Bad.', { param: 'amount' }).toEnvelope()).toEqual({ error: { code: 'invalid_request', message: 'Bad.', param: 'amount' } })
  })

  it('is the only way services and routes build an error', () => {
    const byHand = SIMULATOR.filter(({ file }) => /^server\/(services|http\/routes)\//.test(file)).filter(({ text }) => text.includes('new ApiError('))
    expect(byHand.map(({ file }) => file)).toEqual([])
  })

  it('has every code the simulator throws, with the status it is thrown with', () => {
    const thrown: string[] = []
    for (const { file, text } of SIMULATOR) {
      for (const [, code] of text.matchAll(/apiError\(\s*'([a-z_]+)'/g)) thrown.push(`${file}: ${code} ${code! in ERROR_CODES ? '' : 'missing'}`)
      for (const [, status, code] of text.matchAll(/new ApiError\(\s*(\d+),\s*'([a-z_]+)'/g)) {
        const known = ERROR_CODES[code as ErrorCode]
        thrown.push(`${file}: ${code} ${known === undefined ? 'missing' : known.status === Number(status) ? '' : `thrown as ${status}, catalogued as ${known.status}`}`)
      }
    }
    expect(thrown.length).toBeGreaterThan(40)
    expect(thrown.filter((line) => !line.endsWith(' '))).toEqual([])
  })

  it('has no code nothing throws', () => {
    const text = SIMULATOR.map((source) => source.text).join('\n')
    // Named in a throw or in a route's `errors`: the catalogue's own keys are unquoted, so they do not count.
    const unused = Object.keys(ERROR_CODES).filter((code) => !text.includes(`'${code}'`))
    expect(unused).toEqual([])
  })
})
