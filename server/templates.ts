import { readFileSync } from 'node:fs'
import path from 'node:path'
import { packageRoot } from '../src/package-root.js'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** HTML-escapes text for element content and quoted attribute values. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!)

/** Markup built by the server (already escaped), passed to a template as is. */
export class SafeHtml {
  constructor(readonly html: string) {}
}

export const safe = (html: string): SafeHtml => new SafeHtml(html)

/** A value as it goes into a page: escaped, unless it is markup the server built. */
const showHtml = (value: TemplateValue): string => (value instanceof SafeHtml ? value.html : escapeHtml(String(value)))

/** Markup from a template literal, each value shown as a template file shows it: html`You paid ${amount}.` */
export const html = (strings: TemplateStringsArray, ...values: TemplateValue[]): SafeHtml =>
  safe(strings.reduce((out, text, index) => out + showHtml(values[index - 1]!) + text))

/**
 * Unicode's explicit bidi controls: the embeddings and overrides (U+202A–U+202E),
 * the isolates (U+2066–U+2069) and the marks (U+200E, U+200F, U+061C).
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * Text without bidi controls, for where no markup can isolate it: a page's
 * <title>, a PDF. The API keeps what it was sent; only the showing drops them.
 */
export const withoutBidiControls = (text: string): string => text.replace(BIDI_CONTROLS, '')

/**
 * Text a merchant or customer wrote, as it goes into a page: escaped, and
 * isolated (<bdi>) so that its bidi controls or right-to-left letters reorder
 * only itself, never the page's words around it (an override in a display
 * name would otherwise reverse "· FJ$15.00" after it).
 */
export const userText = (text: string): SafeHtml => html`<bdi>${text}</bdi>`

export type TemplateValue = string | number | SafeHtml

/**
 * Renders a file under templates/ where `{{name}}` is replaced by the value,
 * HTML-escaped unless it is SafeHtml. A placeholder without a value throws,
 * so a typo cannot ship a page with a hole in it.
 */
export class Templates {
  private readonly cache = new Map<string, string>()

  constructor(private readonly dir = path.join(packageRoot(), 'templates')) {}

  render(name: string, values: Record<string, TemplateValue>): string {
    return this.fill(name, values, showHtml)
  }

  /** For plain-text templates (e-mail text parts): values go in as they are. */
  renderText(name: string, values: Record<string, string | number>): string {
    return this.fill(name, values, String)
  }

  private fill<V>(name: string, values: Record<string, V>, show: (value: V) => string): string {
    return this.source(name).replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_match, key: string) => {
      const value = values[key]
      if (value === undefined) throw new Error(`template ${name} needs a value for {{${key}}}`)
      return show(value)
    })
  }

  private source(name: string): string {
    let text = this.cache.get(name)
    if (text === undefined) {
      text = readFileSync(path.join(this.dir, name), 'utf8')
      this.cache.set(name, text)
    }
    return text
  }
}
