import { readFile } from 'node:fs/promises'
import { ApiError } from '../errors.js'
import { fileUnreadable } from './files.js'

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff])

/** The image type of `bytes` from its magic bytes, not its file name. */
export function detectImageType(bytes: Buffer): 'image/png' | 'image/jpeg' | undefined {
  if (bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return 'image/png'
  if (bytes.subarray(0, JPEG_SIGNATURE.length).equals(JPEG_SIGNATURE)) return 'image/jpeg'
  return undefined
}

/** Reads a PNG or JPEG file as a `data:image/...;base64,` URL, as the verification endpoint takes images. */
export async function readImageAsDataUrl(file: string, flag: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw fileUnreadable(file, error, flag)
  }
  const type = detectImageType(bytes)
  if (!type) throw new ApiError(0, 'unsupported_file', `${file} is not a PNG or JPEG image.`, flag)
  return `data:${type};base64,${bytes.toString('base64')}`
}
