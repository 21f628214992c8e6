import { createReadStream } from 'node:fs'

/**
 * The chunks' bytes, or undefined once there are more than `maxBytes`: a
 * device such as /dev/zero, or a program writing into a pipe, may never end.
 * Leaving the loop early closes the stream.
 */
export async function readAtMost(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer | undefined> {
  const read: Uint8Array[] = []
  let total = 0
  for await (const chunk of chunks) {
    total += chunk.length
    if (total > maxBytes) return undefined
    read.push(chunk)
  }
  return Buffer.concat(read)
}

/** A file's bytes, or undefined past `maxBytes`; chunks of 1 MiB (a 16 MiB file in 16 reads). */
export const readFileAtMost = (file: string, maxBytes: number): Promise<Buffer | undefined> =>
  readAtMost(createReadStream(file, { highWaterMark: 1024 * 1024 }), maxBytes)

/** Why a file could not be read, in words: "no such file", "it is a folder", or the system's message. */
export function readFailure(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'it is a folder'
  return message
}
