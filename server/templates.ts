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
    return this.fill(name, values, (value) => (value instanceof SafeHtml ? value.html : escapeHtml(String(value))))
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
