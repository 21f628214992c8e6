// `npm run build`: dist/ from scratch, in Node alone so that it runs the
// same on Linux, macOS and Windows (no `rm -rf` for cmd.exe to miss).
// TypeScript 7's native compiler emits the same JavaScript as TypeScript 6 in
// about half the time (docs/performance.md, "The test suite"); TypeScript 6
// stays the project's `typescript` because typescript-eslint needs its
// compiler API, which TypeScript 7 does not have (docs/platforms.md).
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const nativeTsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')), 'bin', 'tsc')
const run = (script, ...args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' })

rmSync(path.join(root, 'dist'), { recursive: true, force: true })
run(nativeTsc, '-p', 'tsconfig.build.json')
run(path.join(root, 'scripts', 'bundle-got.mjs'))
run(path.join(root, 'scripts', 'oclif.mjs'), 'manifest')
