/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts
 * the sequences that retitle a window or clear the screen, BEL ends some),
 * DEL, C1 controls (U+009B is a one-byte CSI on some terminals), and the
 * bidi controls, which reorder how a line reads (the "Trojan Source" trick).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * `text` safe to print on a terminal: each character above shown as a
 * visible escape, `\n`, `\r` and `\t` for those three and `\u001b` for the
 * rest, so that data (a metadata value, a merchant's name, another server's
 * error message) can neither drive the terminal nor fake a line of output.
 * Everything else, any script, macrons and emoji, passes unchanged. Apply it
 * to the data before colouring: chalk's own codes must stay codes.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (control) => SHORT_ESCAPES[control] ?? `\\u${control.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
