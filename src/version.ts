import { readFileSync } from 'node:fs'

/**
 * Bula's version from its package.json, found by walking up from this file,
 * which sits at a different depth in src/ and in dist/src/.
 */
export function bulaVersion(): string {
  for (let url = new URL('.', import.meta.url); url.pathname !== '/'; url = new URL('..', url)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'bula' && pkg.version) return pkg.version
    } catch {
      // no package.json at this level: keep walking up
    }
  }
  return '0.0.0'
}
