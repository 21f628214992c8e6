import { fstatSync } from 'node:fs'
import { stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { readAtMost, readFailure, readFileAtMost } from '../bounded-read.js'
import { byteSize } from '../byte-size.js'
import { ApiError } from '../errors.js'
import { jsonFileText } from '../json.js'
import { makePrivate } from '../private-file.js'
import { usageError } from './usage.js'

/** The file name that means standard input or output, as `cat -` and curl's `-o -` read it. */
export const STANDARD_STREAM = '-'

/** How a message names the file to read: "standard input" for `-`. */
export const inputName = (file: string): string => (file === STANDARD_STREAM ? 'standard input' : file)

/**
 * A file the CLI could not read, as every command reports it: `file_unreadable`
 * naming it, and the flag or argument. `error` is what reading it threw, or
 * the reason in words when nothing did; `hint`, what to do instead, follows
 * the reason after a semicolon.
 */
export function fileUnreadable(name: string, error: unknown, param: string, hint?: string): ApiError {
  const reason = typeof error === 'string' ? error : readFailure(error)
  return new ApiError(0, 'file_unreadable', `Cannot read ${name}: ${reason}${hint === undefined ? '.' : `; ${hint}`}`, param)
}

/**
 * Reads a JSON file of at most `maxBytes`, or standard input for `-`;
 * failures are ApiErrors (exit 1) whose `param` names the argument or flag:
 * `file_unreadable` (missing, a folder) or `invalid_file` (larger, or not
 * JSON). `tooLarge` says what to do with a larger file. `-` is a usage error
 * (exit 2) when standard input is a terminal, which would wait for typing,
 * or empty; the message says to pipe `what` (e.g. "a state file") into it.
 * A folder on standard input is `file_unreadable`, as a folder given by name.
 */
export async function readJsonFile(
  file: string,
  param: string,
  { maxBytes, tooLarge, what, stdin = process.stdin }: { maxBytes: number; tooLarge: string; what: string; stdin?: NodeJS.ReadableStream & { isTTY?: boolean; fd?: number } },
): Promise<unknown> {
  const fromStdin = file === STANDARD_STREAM
  const name = inputName(file)
  const pipeIt = `pipe ${what} into it, or give a file name instead of -.`
  if (fromStdin && stdin.isTTY) throw usageError(`Standard input is a terminal: ${pipeIt}`)
  let bytes: Buffer | undefined
  try {
    bytes = fromStdin ? await readAtMost(stdin as AsyncIterable<Buffer>, maxBytes) : await readFileAtMost(file, maxBytes)
  } catch (error) {
    throw fileUnreadable(name, error, param)
  }
  if (bytes === undefined) throw new ApiError(0, 'invalid_file', `${name} is larger than ${byteSize(maxBytes)}: ${tooLarge}`, param)
  if (fromStdin && bytes.length === 0) {
    // Node hands a folder on standard input (`< folder`) over as a stream that ends at once, instead of failing to read it.
    if (stdin.fd !== undefined && fstatSync(stdin.fd).isDirectory()) {
      throw fileUnreadable(name, 'it is a folder (EISDIR)', param, pipeIt)
    }
    // An empty pipe is most often a command before the | that failed (its error is above), not a file to call "not JSON".
    throw usageError(`Standard input is empty (nothing was piped into it, or the command before | failed): ${pipeIt}`)
  }
  const text = jsonFileText(bytes)
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ApiError(0, 'invalid_file', `${name} is not JSON: ${(error as Error).message}.`, param)
  }
}

/**
 * Writes `data` to `file`. An existing file is kept (`file_exists`) unless
 * `force`: what it holds may be someone's work. `file_unwritable` for any
 * other failure, naming a folder given as the file or a missing parent
 * folder. `param` names the argument or flag. A `secret` file (one
 * holding signing secrets or customers' e-mails) is readable by its owner
 * only (0600), also when it replaces an existing file.
 */
export async function writeOutputFile(file: string, data: string | Uint8Array, options: { force: boolean; param: string; secret?: boolean }): Promise<void> {
  try {
    // 'wx' fails when the file exists, with no window between a check and the write.
    await writeFile(file, data, { flag: options.force ? 'w' : 'wx', mode: options.secret ? 0o600 : 0o666 })
    if (options.secret) await makePrivate(file)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    // A folder also fails 'wx' with EEXIST, but --force cannot replace it (EISDIR): name the folder instead.
    const isFolder = code === 'EISDIR' || (code === 'EEXIST' && (await stat(file).catch(() => undefined))?.isDirectory())
    if (isFolder) throw new ApiError(0, 'file_unwritable', `Cannot write ${file}: it is a folder. Give a file name.`, options.param)
    if (code === 'EEXIST') throw new ApiError(0, 'file_exists', `${file} exists: add --force to overwrite it.`, options.param)
    // Node's ENOENT message names the file, which is the one thing meant to be missing.
    if (code === 'ENOENT') {
      throw new ApiError(0, 'file_unwritable', `Cannot write ${file}: the folder ${path.dirname(file)} does not exist. Create it first.`, options.param)
    }
    throw new ApiError(0, 'file_unwritable', `Cannot write ${file}: ${message}.`, options.param)
  }
}

/**
 * Checks, before any work, that standard output can take what `-` as the
 * output file would put there. Not with --json, which prints the command's
 * result there too; and not `binary` data (named, e.g. "The PDF") on a
 * terminal, which it would garble (curl refuses too). `given` says how `-`
 * was given: "using --out -", "FILE is -". Usage errors (exit 2).
 */
export function checkStandardOutput(
  file: string,
  { given, json, binary, stdout = process.stdout }: { given: string; json: boolean; binary?: string; stdout?: { isTTY?: boolean } },
): void {
  if (file !== STANDARD_STREAM) return
  if (json) throw usageError(`--json cannot also be provided when ${given}: both would write to standard output.`)
  if (binary !== undefined && stdout.isTTY) {
    throw usageError(`${binary} is binary and standard output is a terminal, which it would garble: redirect it to a file (> file) or pipe it to a program.`)
  }
}

/**
 * Writes `data` to standard output when `file` is `-` (checked first with
 * checkStandardOutput), else to the file as writeOutputFile does.
 */
export async function writeOutput(file: string, data: string | Uint8Array, options: { force: boolean; param: string; secret?: boolean }): Promise<void> {
  if (file !== STANDARD_STREAM) return writeOutputFile(file, data, options)
  // Resolved once the bytes are handed on: a large PDF into a slow pipe is not cut short when the command returns.
  await new Promise<void>((resolve, reject) => process.stdout.write(data, (error) => (error ? reject(error) : resolve())))
}

/** Pretty JSON with a final newline, as a file a person reads and keeps in git. */
export const toJsonFileText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`
