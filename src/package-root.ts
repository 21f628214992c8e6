import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

let cached: { dir: string; version: string } | undefined

/**
 * Bula's own folder (where package.json, templates/ and bin/ live), found by
 * walking up from this file, which sits at a different depth in src/ and in
 * dist/src/.
 */
function findPackage(): { dir: string; version: string } {
  if (cached) return cached
  for (let url = new URL('.', import.meta.url); url.pathname !== '/'; url = new URL('..', url)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'bula-tools' && pkg.version) return (cached = { dir: fileURLToPath(url), version: pkg.version })
    } catch {
      // no package.json at this level: keep walking up
    }
  }
  throw new Error('cannot find the bula-tools package folder')
}

export const packageRoot = (): string => findPackage().dir
export const bulaVersion = (): string => findPackage().version
