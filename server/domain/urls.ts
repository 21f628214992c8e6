import type { Mode } from '../../src/schemas/index.js'

/**
 * HTTPS everywhere the spec asks for it; test mode also accepts loopback
 * http (`localhost`, `127.0.0.1`, `[::1]`), so local apps and receivers work
 * (contract §4).
 */
export function isAllowedUrl(url: string, mode: Mode): boolean {
  const parsed = new URL(url)
  if (parsed.protocol === 'https:') return true
  return mode === 'test' && parsed.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname)
}
