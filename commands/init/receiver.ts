import { Args, Flags } from '@oclif/core'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { BaseCommand } from '../../src/cli/base-command.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { usageError } from '../../src/cli/usage.js'
import { ApiError } from '../../src/errors.js'
import { packageRoot } from '../../src/package-root.js'

/** The languages a sample receiver is written in, each started by one command in its folder. */
const RECEIVERS = {
  node: { run: 'node receiver.mjs' },
  python: { run: 'python3 receiver.py' },
  php: { run: 'php -S localhost:${PORT:-4242} receiver.php' },
} as const
type ReceiverLang = keyof typeof RECEIVERS
/** The route every sample answers on. */
const RECEIVER_PATH = '/webhooks'

export interface InitReceiverResult {
  /** Absolute path of the folder written to. */
  dir: string
  lang: ReceiverLang
  /** A shell command that starts the receiver, run in dir. */
  run: string
  /** The environment variables the receiver reads. */
  env: string[]
  /** The webhook route it answers on. */
  path: string
  /** Paths written, relative to dir. */
  files: string[]
  /** The subset of files that existed and were replaced (--force). */
  overwritten: string[]
}

export default class InitReceiver extends BaseCommand<InitReceiverResult> {
  static override summary = 'Write a sample webhook receiver (Node.js, Python or PHP) that verifies, deduplicates and acknowledges deliveries.'

  static override description =
    'Copies a receiver and its README.md into DIR. Each verifies Service-Signature (every v1= value) on the raw body ' +
    'with a constant-time compare, refuses a timestamp more than 5 minutes away, deduplicates on event_id in a file ' +
    'that survives a restart, and answers 2xx at once. None needs anything installed: Node.js with node:crypto, Python ' +
    'with its standard library, PHP without Composer. --json prints the command that starts it. Existing files are ' +
    'left alone unless --force is given.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> ./webhooks-receiver --lang python',
    '<%= config.bin %> <%= command.id %> ./bula-receiver --lang php --force --json',
  ]

  static override args = {
    dir: Args.string({ description: 'Folder to write to; created when missing.', default: 'bula-receiver' }),
  }

  static override flags = {
    lang: Flags.string({ description: 'The receiver\'s language.', options: Object.keys(RECEIVERS), default: 'node' }),
    force: Flags.boolean({ description: 'Overwrite files that already exist in DIR.' }),
  }

  async run(): Promise<InitReceiverResult> {
    const { args, flags } = await this.parse(InitReceiver)
    const lang = flags.lang as ReceiverLang
    const templateDir = path.join(packageRoot(), 'templates', 'receiver', lang)
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
      try {
        await mkdir(path.dirname(target), { recursive: true })
        await writeFile(target, await readFile(path.join(templateDir, file)))
      } catch (error) {
        // A read-only DIR, or one under a file, is the user's to fix, not a bug of bula (unexpected_error).
        throw new ApiError(0, 'file_unwritable', `Cannot write ${target}: ${(error as Error).message}. Give another DIR.`, 'dir')
      }
    }

    const { run } = RECEIVERS[lang]
    this.log(`Wrote ${files.join(', ')} to ${dir}${existing.length > 0 ? ` (overwrote ${existing.join(', ')})` : ''}.`)
    this.log()
    this.log(`Next, with \`${bulaCommand('serve')}\` running (see README.md):`)
    this.log(`  export BULA_WEBHOOK_SECRET=$(${bulaCommand('listen --print-secret')})`)
    // In the background, as docs/webhooks-receiver.md has it: pasted as printed, the lines after it run too, so it
    // is given a second to listen before the check (which otherwise met ECONNREFUSED in 6 of 6 cases). Its lines go
    // to a file: written into the terminal, they break listen's live view, which redraws over them.
    this.log(`  (cd ${shellWord(path.relative(process.cwd(), dir) || '.')} && ${run} > receiver.log 2>&1) & sleep 1`)
    this.log(`  ${bulaCommand(`webhooks check http://localhost:4242${RECEIVER_PATH}`)}`)
    this.log(`  ${bulaCommand(`listen --forward-to http://localhost:4242${RECEIVER_PATH}`)}`)
    return { dir, lang, run, env: ['BULA_WEBHOOK_SECRET', 'PORT'], path: RECEIVER_PATH, files, overwritten: existing }
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
 * The folder as one word for a POSIX shell: as it is when nothing in it is special to the shell, else in single
 * quotes. Unquoted, "my hooks" made cd fail and "it's" left bash waiting for the quote to close.
 */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}
