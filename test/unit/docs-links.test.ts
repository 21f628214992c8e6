import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; a repeat gets -1, -2… */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Relative links `[text](target)` outside code, with the line they are on. */
function relativeLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = []
  let fenced = false
  for (const [index, line] of markdown.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    if (fenced) continue
    const prose = line.replace(/`[^`]*`/g, '')
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, line: index + 1 })
    }
  }
  return links
}

describe('links between the docs', () => {
  it('every relative link in README.md and docs/ names a file that exists, and a heading that it has', () => {
    const broken: string[] = []
    for (const doc of DOCS) {
      for (const { target, line } of relativeLinks(readFileSync(path.join(ROOT, doc), 'utf8'))) {
        const [file, anchor] = target.split('#') as [string, string | undefined]
        const resolved = file === '' ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), decodeURIComponent(file))
        if (!existsSync(resolved)) {
          broken.push(`${doc}:${line}: ${target} (no such file)`)
          continue
        }
        if (anchor && resolved.endsWith('.md') && !headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${doc}:${line}: ${target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('finds a broken link and a missing heading: the check is not a rubber stamp', () => {
    expect(headingAnchors('# Balance, settlement and Payouts\n## `bula listen`\n## Cancel\n## Cancel\n```\n# not a heading\n```')).toEqual(
      new Set(['balance-settlement-and-payouts', 'bula-listen', 'cancel', 'cancel-1']),
    )
    expect(relativeLinks('See [a](simulator.md#invoices), [b](https://x.test/), `[c](d.md)` and\n[e](./cli.md "title").')).toEqual([
      { target: 'simulator.md#invoices', line: 1 },
      { target: './cli.md', line: 2 },
    ])
  })
})
