import { createHash } from 'node:crypto'
import { invalidRequest, invalidState } from '../../src/errors.js'
import type { SubmitVerificationRequest, Tier, Verification } from '../../src/schemas/index.js'
import type { VerificationDocumentRecord, VerificationRecord } from './merchant.js'

const SIGNATURES: { contentType: string; magic: number[] }[] = [
  { contentType: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { contentType: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
  { contentType: 'image/gif', magic: [0x47, 0x49, 0x46, 0x38] },
  { contentType: 'image/webp', magic: [0x52, 0x49, 0x46, 0x46] },
]

/**
 * Reads a photo sent as a data URL or bare base64 and keeps only what a
 * reviewer's record needs (type, size, digest): the simulator has no use for
 * the pixels, and the data file stays small.
 */
export function decodeImage(value: string, param: string): VerificationDocumentRecord {
  const dataUrl = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is.exec(value)
  const base64 = (dataUrl ? dataUrl[2]! : value).replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw invalidRequest(`${param} must be an image as a data URL or base64.`, param)
  const bytes = Buffer.from(base64, 'base64')
  const found = SIGNATURES.find((s) => s.magic.every((byte, i) => bytes[i] === byte))
  if (!found) throw invalidRequest(`${param} is not a PNG, JPEG, GIF or WebP image.`, param)
  if (dataUrl && dataUrl[1]!.toLowerCase() !== found.contentType) {
    throw invalidRequest(`${param} says ${dataUrl[1]} but holds ${found.contentType}.`, param)
  }
  return { contentType: found.contentType, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
}

/** Documents by tier: a TIN card photo on both, plus business registration or personal ID (spec, item 6). */
export function submittedVerification(
  current: VerificationRecord,
  tier: Tier,
  request: SubmitVerificationRequest,
  now: number,
): VerificationRecord {
  if (current.status === 'pending') throw invalidState('Verification is already pending review.')
  if (current.status === 'approved') throw invalidState('Verification is already approved.')
  const tinDigits = request.tin.replace(/[ -]/g, '')
  if (!/^[0-9]{9}$/.test(tinDigits)) throw invalidRequest('tin must have exactly 9 digits.', 'tin')
  const [needed, refused] =
    tier === 'business' ? (['businessRegistration', 'personalId'] as const) : (['personalId', 'businessRegistration'] as const)
  const account = tier === 'business' ? 'a business account' : 'an individual account'
  if (request[refused] !== undefined) throw invalidRequest(`${refused} is not used for ${account}; send ${needed}.`, refused)
  const neededDocument = request[needed]
  if (neededDocument === undefined) throw invalidRequest(`${needed} is required for ${account}.`, needed)
  return {
    status: 'pending',
    tinLast3: tinDigits.slice(-3),
    documents: {
      tinCardPhoto: decodeImage(request.tinCardPhoto, 'tinCardPhoto'),
      [needed]: decodeImage(neededDocument, needed),
    },
    submittedAt: now,
    reviewedAt: null,
    rejectionReason: null,
  }
}

export function reviewedVerification(
  current: VerificationRecord,
  decision: { approve: true } | { approve: false; reason: string },
  now: number,
): VerificationRecord {
  if (current.status !== 'pending') throw invalidState(`Only pending verification can be reviewed; it is ${current.status}.`)
  return decision.approve
    ? { ...current, status: 'approved', reviewedAt: now }
    : { ...current, status: 'rejected', reviewedAt: now, rejectionReason: decision.reason }
}

export const presentVerification = (v: VerificationRecord): Verification => ({
  status: v.status,
  tin: v.tinLast3 === null ? null : `******${v.tinLast3}`,
  documents: v.documents,
  submittedAt: v.submittedAt,
  reviewedAt: v.reviewedAt,
  rejectionReason: v.rejectionReason,
})
