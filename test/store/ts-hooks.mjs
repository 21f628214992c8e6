// Module hooks that let a plain `node` child process run the repository's
// TypeScript: the crash test kills such a child mid-write, and vitest's own
// transform does not reach into it. Transpile only, no type check (tsc does that).
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

/** Sources import `./x.js` (NodeNext style); next to them lies `./x.ts`. Packages resolve as usual. */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/^(\.|\/|file:)/.test(specifier) || !specifier.endsWith('.js')) throw error
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context)
  const fileName = fileURLToPath(url)
  const { outputText } = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
