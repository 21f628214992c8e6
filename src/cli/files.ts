import { chmod, readFile, writeFile } from 'node:fs/promises'
import { ApiError } from '../errors.js'

/**
 * Reads a JSON file; failures are ApiErrors (exit 1) whose `param` names the
 * argument or flag: `file_unreadable` (missing, a folder) or `invalid_file`
 * (not JSON).
 */
export async function readJsonFile(file: string, param: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new ApiError(0, 'file_unreadable', `Cannot read ${file}: ${reason}.`, param)
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ApiError(0, 'invalid_file', `${file} is not JSON: ${(error as Error).message}.`, param)
  }
}

/**
 * Writes `text` to `file`. An existing file is kept (`file_exists`) unless
 * `force`: what it holds may be someone's work. `file_unwritable` for any
 * other failure. `param` names the argument or flag. A `secret` file (one
 * holding signing secrets or customers' e-mails) is readable by its owner
 * only (0600), also when it replaces an existing file.
 */
export async function writeOutputFile(file: string, text: string, options: { force: boolean; param: string; secret?: boolean }): Promise<void> {
  try {
    // 'wx' fails when the file exists, with no window between a check and the write.
    await writeFile(file, text, { flag: options.force ? 'w' : 'wx', mode: options.secret ? 0o600 : 0o666 })
    // The mode above applies to a new file only; an overwritten one keeps its own until told.
    if (options.secret) await chmod(file, 0o600)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'EEXIST') throw new ApiError(0, 'file_exists', `${file} exists: add --force to overwrite it.`, options.param)
    throw new ApiError(0, 'file_unwritable', `Cannot write ${file}: ${message}.`, options.param)
  }
}

/** Pretty JSON with a final newline, as a file a person reads and keeps in git. */
export const toJsonFileText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`
