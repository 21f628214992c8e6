// Bundles got, the HTTP client of the CLI and BulaClient, into one CommonJS
// file, dist/vendor/got.cjs, which the client loads with require() on its
// first request. Loaded as the package it is, got is about 50 ES modules, and
// its ESM import of node:http builds that module's ESM facade, which reads
// every export, including the lazy WebSocket getters that load Node's bundled
// undici: together about 40 ms of every CLI command that makes a request
// (docs/performance.md, "CLI cold start"). The bundle is the same got; the
// licence of every package in it is written beside it, in got.LICENSES.txt.
import { build } from 'esbuild'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(import.meta.dirname, '..')
const outdir = path.join(root, 'dist', 'vendor')

const { metafile } = await build({
  entryPoints: [fileURLToPath(import.meta.resolve('got'))],
  outfile: path.join(outdir, 'got.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22.12',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
})

/** The folder of each package whose files went into the bundle, by name. */
const packages = new Map()
for (const input of Object.keys(metafile.inputs)) {
  const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input)
  if (match) packages.set(match[2], path.join(root, match[1]))
}

const notices = [...packages].sort(([a], [b]) => a.localeCompare(b)).map(([name, dir]) => {
  const { version, license } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const file = readdirSync(dir).find((entry) => /^licen[cs]e(\.md|\.txt)?$/i.test(entry))
  const text = file ? readFileSync(path.join(dir, file), 'utf8').trim() : `License: ${license}`
  return `${name}@${version}\n\n${text}\n`
})
writeFileSync(
  path.join(outdir, 'got.LICENSES.txt'),
  `dist/vendor/got.cjs bundles these packages, each under its own licence:\n\n${notices.join('\n---\n\n')}`,
)
