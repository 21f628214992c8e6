import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * Random base62 text from the system CSPRNG. Every id, key and token comes
 * from here, so ids are unguessable and no other module needs randomness.
 * Rejection sampling keeps the characters uniform.
 */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}

/** `ms_4fQ...`: a public object id with a type prefix, 20 random characters. */
export const newId = (prefix: string): string => `${prefix}_${randomBase62(20)}`

/** A secret (API key, signing secret, page token): 32 random characters, about 190 bits. */
export const newSecret = (prefix: string): string => `${prefix}${randomBase62(32)}`
