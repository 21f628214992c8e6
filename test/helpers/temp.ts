import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'

/**
 * A new folder in the system's temp folder, removed with everything in it
 * when the test that made it finishes, passed or failed: a run of the suite
 * leaves nothing behind in /tmp. Call it inside a test.
 */
export async function tempFolder(prefix: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), prefix))
  onTestFinished(() => rm(folder, { recursive: true, force: true }))
  return folder
}
