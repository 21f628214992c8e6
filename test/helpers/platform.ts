import { stat } from 'node:fs/promises'
import { expect } from 'vitest'

/** POSIX file modes exist: on Windows a file's privacy is its ACL in the user's profile (docs/platforms.md). */
export const HAS_POSIX_MODES = process.platform !== 'win32'

/** POSIX tools and signal semantics (sh, script(1), SIGTERM delivered to a process): not on Windows. */
export const IS_POSIX = process.platform !== 'win32'

/** Asserts the permission bits of `file` where the system has them. */
export async function expectMode(file: string, mode: number): Promise<void> {
  if (!HAS_POSIX_MODES) return
  expect((await stat(file)).mode & 0o777, file).toBe(mode)
}
