import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { detectImageType, readImageAsDataUrl } from '../../src/cli/image-file.js'
import { describeDestination, parseBankDestination, parseWalletDestination } from '../../src/payout-destination.js'

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])

describe('images', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bula-images-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('detects PNG and JPEG by magic bytes only', () => {
    expect(detectImageType(PNG)).toBe('image/png')
    expect(detectImageType(JPEG)).toBe('image/jpeg')
    expect(detectImageType(Buffer.from('GIF89a'))).toBeUndefined()
    expect(detectImageType(Buffer.alloc(0))).toBeUndefined()
  })

  it('reads a file as a data URL whatever its name', async () => {
    const file = join(dir, 'card.txt')
    await writeFile(file, JPEG)
    expect(await readImageAsDataUrl(file, 'tin-card-photo')).toBe(`data:image/jpeg;base64,${JPEG.toString('base64')}`)
  })

  it('names a missing file and the flag', async () => {
    await expect(readImageAsDataUrl(join(dir, 'missing.png'), 'personal-id')).rejects.toMatchObject({
      status: 0,
      code: 'file_unreadable',
      param: 'personal-id',
      message: `Cannot read ${join(dir, 'missing.png')}: no such file.`,
    })
  })

  it('refuses a file that is not an image', async () => {
    const file = join(dir, 'notes.png')
    await writeFile(file, 'hello')
    await expect(readImageAsDataUrl(file, 'tin-card-photo')).rejects.toMatchObject({ code: 'unsupported_file' })
  })
})

describe('payout destinations', () => {
  it('reads a bank account, allowing colons in the account name', () => {
    expect(parseBankDestination('BSP:Kai Store Ltd:12345678')).toEqual({
      type: 'bank_account',
      bankName: 'BSP',
      accountName: 'Kai Store Ltd',
      accountNumber: '12345678',
    })
    expect(parseBankDestination('ANZ: A:B Traders :123456')).toMatchObject({ accountName: 'A:B Traders' })
  })

  it.each(['BSP:12345678', 'BSP::123456', ':Name:123456', 'BSP:Name:'])('refuses the bank account %j', (input) => {
    expect(() => parseBankDestination(input)).toThrow(/Expected "Bank:Account Name:AccountNumber"/)
  })

  it('reads a wallet', () => {
    expect(parseWalletDestination('mycash:+6799123456')).toEqual({ type: 'wallet', provider: 'mycash', phone: '+6799123456' })
  })

  it.each(['paypal:+6797123456', 'mpaisa', 'mpaisa:', 'mpaisa:+679:1'])('refuses the wallet %j', (input) => {
    expect(() => parseWalletDestination(input)).toThrow(/Expected "mpaisa\|mycash:\+679XXXXXXX"/)
  })

  it('describes destinations', () => {
    expect(describeDestination(null)).toBe('-')
    expect(describeDestination(parseWalletDestination('mpaisa:+6797123456'))).toBe('mpaisa wallet +6797123456')
    expect(describeDestination(parseBankDestination('BSP:Kai:123456'))).toBe('BSP, Kai, account 123456')
  })
})
