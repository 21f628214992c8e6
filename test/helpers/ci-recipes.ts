import { readFileSync } from 'node:fs'
import path from 'node:path'

// The CI recipes of docs/testing-and-ci.md, each a YAML block after a
// `<!-- recipe: NAME -->` marker, read the way the tests run and validate them.

const DOC = path.resolve(import.meta.dirname, '../../docs/testing-and-ci.md')

export const RECIPES = ['github-node', 'github-python', 'gitlab-node', 'gitlab-python'] as const
export type RecipeName = (typeof RECIPES)[number]

/** The YAML of a recipe, as the reader copies it. */
export function recipeYaml(name: RecipeName): string {
  const match = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(readFileSync(DOC, 'utf8'))
  if (!match) throw new Error(`docs/testing-and-ci.md has no recipe ${name}`)
  return match[1]!
}

/** The shell commands of a recipe, in order: a GitHub job's `run:` steps, or a GitLab job's `script:` lines. */
export function recipeCommands(name: RecipeName): string[] {
  const lines = recipeYaml(name).split('\n')
  if (name.startsWith('github-')) return lines.flatMap((line) => /^\s+- run: (.+)$/.exec(line)?.[1] ?? [])
  const script = lines.findIndex((line) => line.trim() === 'script:')
  return lines.slice(script + 1).flatMap((line) => /^\s+- (.+)$/.exec(line)?.[1] ?? [])
}
