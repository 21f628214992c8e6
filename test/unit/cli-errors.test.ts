import { Errors } from '@oclif/core'
import { Chalk } from 'chalk'
import { describe, expect, it } from 'vitest'
import { maskUrlCredentials } from '../../src/cli/base-url.js'
import { describeApiKeyOrigin, describeBaseUrlOrigin, formatApiError, toErrorReport, withApiKeyOrigin, withConnectionOrigin, withRetryHint } from '../../src/cli/error-report.js'
import { usageError } from '../../src/cli/usage.js'
import { DEFAULT_BASE_URL } from '../../src/config/profiles.js'
import { ApiError } from '../../src/errors.js'

const plain = new Chalk({ level: 0 })

describe('formatApiError', () => {
  it('prints code: message', () => {
    expect(formatApiError(new ApiError(401, 'invalid_api_key', 'The API key is not valid.'), plain)).toBe(
      'invalid_api_key: The API key is not valid.',
    )
  })

  it('adds the param when there is one', () => {
    const error = new ApiError(400, 'invalid_request', 'must be a 9-digit TIN', 'tin')
    expect(formatApiError(error, plain)).toBe('invalid_request: must be a 9-digit TIN (param: tin)')
  })

  it('colours only the code, and only when colours are on', () => {
    const line = formatApiError(new ApiError(404, 'not_found', 'No such key.'), new Chalk({ level: 1 }))
    expect(line).toBe('\u001B[31mnot_found\u001B[39m: No such key.')
  })
})

describe('toErrorReport', () => {
  it('passes an ApiError envelope through, exit 1', () => {
    const error = new ApiError(403, 'publishable_key_forbidden', 'Use a secret key.', undefined, 'permission_error')
    expect(toErrorReport(error)).toEqual({
      envelope: { error: { code: 'publishable_key_forbidden', message: 'Use a secret key.', type: 'permission_error' } },
      exitCode: 1,
    })
  })

  it('keeps local failures (status 0) on exit 1', () => {
    expect(toErrorReport(new ApiError(0, 'connection_failed', 'Could not reach'))).toEqual({
      envelope: { error: { code: 'connection_failed', message: 'Could not reach' } },
      exitCode: 1,
    })
  })

  it('reports a bad command line as invalid_usage, exit 2', () => {
    expect(toErrorReport(usageError('Give a duration.'))).toEqual({
      envelope: { error: { code: 'invalid_usage', message: 'Give a duration.' } },
      exitCode: 2,
    })
  })

  // A script reading --json got oclif's terminal layout inside the message: "Parsing --metadata \n\tInvalid …\nSee more help with --help".
  it('reports a flag oclif could not parse in one line, naming the flag', () => {
    const parsing = new Errors.CLIError('Parsing --metadata \n\tInvalid metadata "bad": use key=value, e.g. order_id=1234.\nSee more help with --help', { exit: 2 })
    expect(toErrorReport(parsing).envelope.error.message).toBe('Parsing --metadata: Invalid metadata "bad": use key=value, e.g. order_id=1234.')
    const conflict = new Errors.CLIError('The following error occurred:\n  --quote cannot also be provided when using --amount\nSee more help with --help', { exit: 2 })
    expect(toErrorReport(conflict).envelope.error.message).toBe('The following error occurred: --quote cannot also be provided when using --amount')
  })

  it('keeps the exit code an oclif error asks for', () => {
    expect(toErrorReport(new Errors.CLIError('nope', { exit: 3 })).exitCode).toBe(3)
  })

  it('reports anything else as unexpected_error, exit 1', () => {
    expect(toErrorReport(new TypeError('x is undefined'))).toEqual({
      envelope: { error: { code: 'unexpected_error', message: 'x is undefined' } },
      exitCode: 1,
    })
  })
})

describe('withRetryHint', () => {
  // A create that may have been made: a broken connection, no answer in time, a server fault. Not one refused outright.
  it.each([
    [new ApiError(0, 'network_error', 'POST … failed: socket hang up.'), true],
    [new ApiError(0, 'timeout', 'POST … got no answer within 60 s.'), true],
    [new ApiError(503, 'storage_unavailable', 'The disk refused the write.'), true],
    [new ApiError(0, 'connection_failed', 'Could not reach the simulator.'), false],
    [new ApiError(400, 'invalid_request', 'Invalid `amount`.'), false],
  ])('names the key after %s: %s', (error, named) => {
    const hinted = withRetryHint(error, 'key-1', 'The session may have been created') as ApiError
    expect(hinted.message.endsWith(' The session may have been created: retry with --idempotency-key key-1.')).toBe(named)
  })
})

describe('where the address of a connection_failed came from', () => {
  const elsewhere = { profileName: 'ci', baseUrl: 'http://127.0.0.1:4112' }

  it('names the flag, BULA_BASE_URL or the profile', () => {
    expect(describeBaseUrlOrigin({ ...elsewhere, baseUrlFrom: 'flag' })).toBe('That address came from --base-url.')
    expect(describeBaseUrlOrigin({ ...elsewhere, baseUrlFrom: 'environment' })).toBe('That address came from BULA_BASE_URL.')
    expect(describeBaseUrlOrigin({ ...elsewhere, baseUrlFrom: 'profile' })).toBe(
      'That address came from profile "ci"; --profile or --base-url points the CLI at another simulator.',
    )
  })

  it('calls the default address that, whether or not a profile holds it too', () => {
    const defaultText = 'That is the default address; --base-url, BULA_BASE_URL or --profile points the CLI at another simulator.'
    expect(describeBaseUrlOrigin({ profileName: 'default', baseUrl: DEFAULT_BASE_URL, baseUrlFrom: 'default' })).toBe(defaultText)
    expect(describeBaseUrlOrigin({ profileName: 'ci', baseUrl: DEFAULT_BASE_URL, baseUrlFrom: 'profile' })).toBe(defaultText)
  })

  it('is added to connection_failed only', () => {
    const origin = 'That address came from BULA_BASE_URL.'
    const failed = withConnectionOrigin(new ApiError(0, 'connection_failed', 'Could not reach the simulator at http://127.0.0.1:9.'), origin)
    expect(failed).toMatchObject({ code: 'connection_failed', message: `Could not reach the simulator at http://127.0.0.1:9. ${origin}` })
    const other = new ApiError(0, 'timeout', 'No answer.')
    expect(withConnectionOrigin(other, origin)).toBe(other)
    expect(withConnectionOrigin(new ApiError(0, 'connection_failed', 'Could not reach.'), undefined)).toMatchObject({ message: 'Could not reach.' })
  })
})

describe('maskUrlCredentials', () => {
  it('masks the user and password of every http(s) URL in a text, and leaves the rest', () => {
    expect(maskUrlCredentials('http://user:secretpw@127.0.0.1:1')).toBe('http://***@127.0.0.1:1')
    expect(maskUrlCredentials('GET https://token@bula.example/v1/x failed; see http://127.0.0.1:4111/a@b')).toBe(
      'GET https://***@bula.example/v1/x failed; see http://127.0.0.1:4111/a@b',
    )
    expect(maskUrlCredentials('http://127.0.0.1:4111')).toBe('http://127.0.0.1:4111')
  })
})

describe('where the key of an invalid_api_key came from', () => {
  it('names the flag or BULA_API_KEY, and for a profile says how a restarted simulator refreshes it', () => {
    const address = { baseUrl: 'http://127.0.0.1:4111', baseUrlFrom: 'profile' } as const
    expect(describeApiKeyOrigin({ ...address, profileName: 'default', apiKeyFrom: 'flag' })).toBe('That key came from --api-key.')
    expect(describeApiKeyOrigin({ ...address, profileName: 'default', apiKeyFrom: 'environment' })).toBe('That key came from BULA_API_KEY.')
    expect(describeApiKeyOrigin({ ...address, profileName: 'ci', apiKeyFrom: 'profile', apiKeyBaseUrl: address.baseUrl })).toMatch(
      /^That key came from profile "ci"\. If it was revoked or rotated .*`(npx )?bula login --api-key`; .*run the command again\.$/,
    )
    expect(describeApiKeyOrigin({ ...address, profileName: 'default' })).toBeUndefined()
  })

  it('says a profile\'s key sent to another address (--base-url, BULA_BASE_URL) belongs to the simulator the profile was saved for', () => {
    const profileKey = { profileName: 'default', apiKeyFrom: 'profile', apiKeyBaseUrl: 'http://127.0.0.1:4111' } as const
    expect(describeApiKeyOrigin({ ...profileKey, baseUrl: 'http://127.0.0.1:4112', baseUrlFrom: 'flag' })).toBe(
      'That key is profile "default"\'s, saved for the simulator at http://127.0.0.1:4111, not the one at http://127.0.0.1:4112 (from --base-url): ' +
        'name that simulator\'s profile with --profile, or give its key with --api-key.',
    )
    expect(describeApiKeyOrigin({ ...profileKey, baseUrl: 'http://127.0.0.1:4112', baseUrlFrom: 'environment' })).toContain('(from BULA_BASE_URL)')
    // The same simulator by --base-url: the key was refused for another reason.
    expect(describeApiKeyOrigin({ ...profileKey, baseUrl: 'http://127.0.0.1:4111/', baseUrlFrom: 'flag' })).toContain('run the command again')
  })

  it('is added to invalid_api_key only', () => {
    const origin = 'That key came from --api-key.'
    expect(withApiKeyOrigin(new ApiError(401, 'invalid_api_key', 'The API key is unknown.'), origin)).toMatchObject({
      message: `The API key is unknown. ${origin}`,
    })
    const other = new ApiError(0, 'connection_failed', 'Could not reach.')
    expect(withApiKeyOrigin(other, origin)).toBe(other)
  })
})
