// Runs oclif's developer CLI (`oclif manifest` in the build, `oclif readme` for
// docs/commands.md) without its "oclif update available" notice: the oclif
// package ships @oclif/plugin-warn-if-update-available, which asks the npm
// registry in the background and nags on a later run. A build should neither
// reach the network nor print noise. OCLIF_SKIP_NEW_VERSION_CHECK is that
// plugin's own switch; setting it here works on every platform, where an
// `ENV=value command` script line would not (Windows' cmd). Bula's own `bula`
// has no such plugin. test/unit/oclif-update-check.test.ts checks both.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const bin = createRequire(import.meta.url).resolve('oclif/bin/run.js')
const { status, error } = spawnSync(process.execPath, [bin, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' },
})
if (error) throw error
process.exit(status ?? 1)
