// npm 11 warns whoever installs a package whose manifest has an install-time
// script (`prepare` counts) not listed in their allowScripts. Bula ships its
// built files, so the tarball needs none: `prepack` renames `prepare` (which
// builds a fresh clone on `npm install`) out of the way and `postpack` puts
// it back, as pinst does for postinstall.
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package.json', import.meta.url)
const manifest = JSON.parse(readFileSync(file, 'utf8'))
const [from, to] = process.argv[2] === 'strip' ? ['prepare', '_prepare'] : ['_prepare', 'prepare']
if (manifest.scripts?.[from] !== undefined) {
  manifest.scripts = Object.fromEntries(Object.entries(manifest.scripts).map(([name, script]) => [name === from ? to : name, script]))
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
}
