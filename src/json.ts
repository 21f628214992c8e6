/** Whether a parsed JSON value is an object (not null, not an array): what a file or body of named fields must be. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A JSON file's text from its bytes, without the byte order mark that
 * Windows editors and PowerShell's Out-File put before UTF-8: JSON.parse
 * refused such a file with an invisible "Unexpected token".
 */
export const jsonFileText = (bytes: Buffer): string => bytes.toString('utf8').replace(/^\uFEFF/, '')

/** Whether JSON.parse takes the text: a stored answer that is replayed, or a refused body that is JSON all the same. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
