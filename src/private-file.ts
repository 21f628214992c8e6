import { chmod, stat } from 'node:fs/promises'

/**
 * Makes a file that holds secrets (signing secrets, API keys, customers'
 * e-mails) readable and writable by its owner only, when it is a regular
 * file: the mode given to writeFile applies to a new file only, and a file
 * made by an older bula, by hand or by a copy may have any mode. A device or
 * pipe named as the output (`/dev/null`, `/dev/stdout`) is written to but
 * never re-moded: run as root, that locked every other user out of the
 * system's /dev/null. A file already 0600 is left alone.
 */
export async function makePrivate(file: string): Promise<void> {
  const info = await stat(file)
  if (info.isFile() && (info.mode & 0o777) !== 0o600) await chmod(file, 0o600)
}
