import { describe, expect, it } from 'vitest'
import { printable } from '../../src/terminal-text.js'

/** Every character a terminal may act on instead of showing: what printable() must never let through. */
// eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

describe('printable', () => {
  it('shows escape sequences as text: a title change, a screen clear, a colour', () => {
    expect(printable('\u001b]0;pwned\u0007')).toBe('\\u001b]0;pwned\\u0007')
    expect(printable('\u001b[2J\u001b[31mRED')).toBe('\\u001b[2J\\u001b[31mRED')
  })

  it('escapes every C0 control, DEL and every C1 control (U+009B is a one-byte CSI)', () => {
    for (let code = 0; code <= 0x9f; code += 1) {
      if (code >= 0x20 && code < 0x7f) continue
      const shown = printable(`a${String.fromCharCode(code)}b`)
      expect(shown, `U+${code.toString(16)}`).not.toMatch(UNSAFE)
      expect(shown.startsWith('a\\') && shown.endsWith('b'), shown).toBe(true)
    }
    expect(printable('\u007f')).toBe('\\u007f')
    expect(printable('\u009b2J')).toBe('\\u009b2J')
  })

  it('shows line breaks and tabs escaped, so that a value stays on its line and cannot fake another', () => {
    expect(printable('one\ntwo\r\tthree')).toBe('one\\ntwo\\r\\tthree')
  })

  it('escapes the bidi controls, which reorder what a line seems to say', () => {
    const bidi = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']
    for (const control of bidi) {
      const code = control.codePointAt(0)!.toString(16).padStart(4, '0')
      expect(printable(`x${control}y`)).toBe(`x\\u${code}y`)
    }
  })

  it('leaves ordinary text alone: Fijian names with macrons, other scripts, emoji, punctuation', () => {
    for (const text of ['Kava Kitchen Ltd', "Mere's Masi Prints", 'Nāsinu Vākatalai', 'Māmā Sā', 'Ratu Sukuna Rd, Suva', 'हिन्दी दुकान', '日本語', 'مرحبا', '🥥🌺 Bula!', 'FJ$1,234.50 · 50% off — “quoted”', 'a\\u001b stays as typed', '']) {
      expect(printable(text)).toBe(text)
    }
  })
})
