import type { PayoutDestination } from './schemas/index.js'

const WALLET_PROVIDERS = ['mpaisa', 'mycash'] as const

/**
 * `--payout-destination-bank "Bank:Account Name:123456"`. The account number
 * is the last field and the bank the first, so an account name may itself
 * contain colons. Formats of the parts are checked by the simulator.
 */
export function parseBankDestination(input: string): PayoutDestination {
  const parts = input.split(':').map((part) => part.trim())
  const bankName = parts[0]
  const accountNumber = parts.at(-1)
  const accountName = parts.slice(1, -1).join(':')
  if (parts.length < 3 || !bankName || !accountName || !accountNumber) {
    throw new Error(`Expected "Bank:Account Name:AccountNumber", e.g. "BSP:Kai Store Ltd:12345678", got "${input}".`)
  }
  return { type: 'bank_account', bankName, accountName, accountNumber }
}

/** `--payout-destination-wallet mpaisa:+6797123456`. */
export function parseWalletDestination(input: string): PayoutDestination {
  const [provider, phone, ...rest] = input.split(':').map((part) => part.trim())
  const known = WALLET_PROVIDERS.find((name) => name === provider)
  if (!known || !phone || rest.length > 0) {
    throw new Error(`Expected "${WALLET_PROVIDERS.join('|')}:+679XXXXXXX", e.g. "mpaisa:+6797123456", got "${input}".`)
  }
  return { type: 'wallet', provider: known, phone }
}

export function describeDestination(destination: PayoutDestination | null): string {
  if (!destination) return '-'
  if (destination.type === 'wallet') return `${destination.provider} wallet ${destination.phone}`
  return `${destination.bankName}, ${destination.accountName}, account ${destination.accountNumber}`
}
