import { chmod, stat } from 'node:fs/promises'

/**
 * Makes a file just written readable by its owner only (it holds signing
 * secrets or customers' e-mails), when it is a regular file: the mode given
 * to writeFile applies to a new file only. A device or pipe named as the
 * output (`/dev/null`, `/dev/stdout`) is written to but never re-moded: run
 * as root, that locked every other user out of the system's /dev/null.
 */
export async function makePrivate(file: string): Promise<void> {
  if ((await stat(file)).isFile()) await chmod(file, 0o600)
}
