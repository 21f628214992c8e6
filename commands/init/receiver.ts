import { Args, Flags } from '@oclif/core'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { BaseCommand } from '../../src/cli/base-command.js'
import { usageError } from '../../src/cli/usage.js'
import { bulaVersion, packageRoot } from '../../src/package-root.js'

export interface InitReceiverResult {
  /** Absolute path of the folder written to. */
  dir: string
  /** Paths written, relative to dir. */
  files: string[]
  /** The subset of files that existed and were replaced (--force). */
  overwritten: string[]
}

export default class InitReceiver extends BaseCommand<InitReceiverResult> {
  static override summary = 'Write a sample webhook receiver (Express) that verifies, deduplicates and acknowledges deliveries.'

  static override description =
    'Copies receiver.mjs, package.json and README.md into DIR. The receiver verifies each delivery with ' +
    'verifyWebhook from the bula package, deduplicates on event_id and answers 2xx at once. ' +
    'Existing files are left alone unless --force is given.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> ./webhooks-receiver',
    '<%= config.bin %> <%= command.id %> ./bula-receiver --force',
  ]

  static override args = {
    dir: Args.string({ description: 'Folder to write to; created when missing.', default: 'bula-receiver' }),
  }

  static override flags = {
    force: Flags.boolean({ description: 'Overwrite files that already exist in DIR.' }),
  }

  async run(): Promise<InitReceiverResult> {
    const { args, flags } = await this.parse(InitReceiver)
    const templateDir = path.join(packageRoot(), 'templates', 'receiver')
    const dir = path.resolve(args.dir)
    const files = await listFiles(templateDir)

    if ((await stat(dir).catch(() => undefined))?.isDirectory() === false) {
      throw usageError(`${dir} is a file, not a folder: give another DIR.`)
    }
    const existing: string[] = []
    for (const file of files) if (await exists(path.join(dir, file))) existing.push(file)
    if (existing.length > 0 && !flags.force) {
      throw usageError(`${dir} already has ${existing.join(', ')}: nothing was written. Pass --force to overwrite, or give another DIR.`)
    }

    for (const file of files) {
      const target = path.join(dir, file)
      await mkdir(path.dirname(target), { recursive: true })
      const contents = await readFile(path.join(templateDir, file), 'utf8')
      await writeFile(target, file === 'package.json' ? pinBula(contents) : contents)
    }

    this.log(`Wrote ${files.join(', ')} to ${dir}${existing.length > 0 ? ` (overwrote ${existing.join(', ')})` : ''}.`)
    this.log()
    this.log('Next (with `bula serve` running; see README.md):')
    this.log(`  cd ${path.relative(process.cwd(), dir) || '.'} && npm install`)
    this.log('  export BULA_WEBHOOK_SECRET=$(bula listen --print-secret)')
    this.log('  npm start')
    this.log('  bula webhooks check http://localhost:3000/webhooks')
    this.log('  bula listen --forward-to http://localhost:3000/webhooks')
    return { dir, files, overwritten: existing }
  }
}

/** Every file under dir, relative to it, in a stable order. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort()
}

const exists = (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    () => false,
  )

/**
 * The template asks for any bula; the copy asks for the one that wrote it,
 * whose verifyWebhook matches the signatures this CLI and simulator make.
 */
function pinBula(packageJson: string): string {
  const pkg = JSON.parse(packageJson) as { dependencies: Record<string, string> }
  pkg.dependencies.bula = `^${bulaVersion()}`
  return `${JSON.stringify(pkg, null, 2)}\n`
}
