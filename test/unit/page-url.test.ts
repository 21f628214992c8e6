import { describe, expect, it } from 'vitest'
import { simulatorPageUrl } from '../../src/cli/page-url.js'
import { ApiError } from '../../src/errors.js'

const base = 'http://127.0.0.1:4111'

describe('simulatorPageUrl', () => {
  it.each([
    ['the base URL\'s origin', base, `${base}/pay/cs_1`],
    ['localhost for 127.0.0.1', 'http://localhost:4111', `${base}/pay/cs_1`],
    ['a simulator listening on every address', base, 'http://0.0.0.0:4111/i/tok'],
    ['IPv6 loopback', 'http://[::1]:4111', 'http://localhost:4111/dashboard/login/x'],
    ['a named host', 'https://bula.example', 'https://bula.example/pay/cs_1'],
  ])('takes %s', (_, baseUrl, url) => {
    expect(simulatorPageUrl(url, baseUrl, 'hostedUrl')).toBe(url)
  })

  it.each([
    ['a file', 'file:///etc/passwd'],
    ['a share', 'smb://attacker.example/share'],
    ['script', 'javascript:alert(1)'],
    ['another host', 'http://attacker.example:4111/pay/cs_1'],
    ['another port', 'http://127.0.0.1:4112/pay/cs_1'],
    ['https for http', 'https://127.0.0.1:4111/pay/cs_1'],
    ['a space', `${base}/pay/a b`],
    ['a newline', `${base}/pay/a\nb`],
    ['a relative path', '/pay/cs_1'],
    ['a host this machine does not have, by another name', 'http://localhost.attacker.example:4111/'],
    ['a user name', 'http://x@127.0.0.1:4111/pay/cs_1'],
  ])('refuses %s', (_, url) => {
    expect(() => simulatorPageUrl(url, base, 'hostedUrl')).toThrow(ApiError)
  })

  it('refuses this machine by another name when the base URL is another host', () => {
    expect(() => simulatorPageUrl('http://127.0.0.1:4111/pay/cs_1', 'http://bula:4111', 'hostedUrl')).toThrow(ApiError)
  })

  it('names the URL with every control character escaped', () => {
    const error = (() => {
      try {
        simulatorPageUrl('file:///\u001b[2J\u009b31m\u202ex', base, 'url')
      } catch (caught) {
        return caught as ApiError
      }
      throw new Error('not refused')
    })()
    expect(error.code).toBe('unexpected_response')
    expect(error.message).toBe(
      String.raw`The simulator at http://127.0.0.1:4111 answered a url that bula does not open: "file:///\u001b[2J\u009b31m\u202ex". Only an http(s) URL of http://127.0.0.1:4111 is opened or printed.`,
    )
  })
})
