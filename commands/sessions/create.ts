import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { withRetryHint } from '../../src/cli/error-report.js'
import { expiresAtFrom } from '../../src/session-expiry.js'
import { checkoutSessionFields } from '../../src/cli/fields.js'
import { parseFjdAmount } from '../../src/money.js'
import {
  metadataFromPairs,
  parseExpiresIn,
  parseMetadataPair,
  parseQuote,
  type MetadataPair,
  type QuoteRequest,
} from '../../src/cli/session-inputs.js'
import { usageError, usageParser } from '../../src/cli/usage.js'
import { newIdempotencyKey } from '../../src/client/bula-client.js'
import type { CheckoutSession } from '../../src/schemas/index.js'

export default class SessionsCreate extends BaseCommand<CheckoutSession> {
  static override summary = 'Create a Checkout Session and print its hosted URL.'

  static override description =
    'Give the price either in FJD with --amount (dollars, e.g. 15.00) or as a USD or AUD quote with --quote, ' +
    'converted to FJD once at creation (test mode, Business accounts). Each run sends a fresh Idempotency-Key ' +
    'unless --idempotency-key is given: pass the same key again to retry a create safely.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --amount 15.00',
    '<%= config.bin %> <%= command.id %> --quote 25.00USD --metadata order_id=1234',
    '<%= config.bin %> <%= command.id %> --amount 99.50 --expires-in 2h --success-url https://kaistore.fj/thanks --cancel-url https://kaistore.fj/cart',
    '<%= config.bin %> <%= command.id %> --amount 15 --metadata "note=size=XL" --customer-email mere@example.fj --json',
    '<%= config.bin %> <%= command.id %> --amount 15.00 --idempotency-key order-1234',
  ]

  static override flags = {
    amount: Flags.custom<number>({
      description: 'Price in FJD dollars, at most 2 decimal places (15, 15.5, 15.00); sent as cents.',
      exactlyOne: ['amount', 'quote'],
      parse: usageParser((input) => parseFjdAmount(input)),
    })(),
    quote: Flags.custom<QuoteRequest>({
      description: 'Price in USD or AUD instead, converted to FJD at creation: 25.00USD, 25USD or "25.5 AUD".',
      parse: usageParser(parseQuote),
    })(),
    'success-url': Flags.string({ description: 'Where the hosted page sends the customer after paying (HTTPS; http://localhost in test mode).' }),
    'cancel-url': Flags.string({ description: 'Where the hosted page sends the customer on cancel or a failed payment.' }),
    metadata: Flags.custom<MetadataPair>({
      description: 'A key=value pair to attach, repeatable; the value may contain "=".',
      multiple: true,
      parse: usageParser(parseMetadataPair),
    })(),
    'customer-email': Flags.string({ description: 'Customer e-mail for the live-mode receipt (validated and dropped in test mode).' }),
    'expires-in': Flags.custom<number>({
      description:
        'Expire the session this long after now on the merchant\'s clock: 30m to 24h (90m, 2h, 1h30m). Default 24h.',
      parse: usageParser(parseExpiresIn),
    })(),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key to send (default: a new random key); reuse it to retry.' }),
  }

  async run(): Promise<CheckoutSession> {
    const { flags } = await this.parse(SessionsCreate)
    const metadata = flags.metadata && metadataFromPairs(flags.metadata)
    // The simulator would refuse the clock read with publishable_key_forbidden, whose message is about creating
    // Checkout Sessions: the very thing the user is doing.
    if (flags['expires-in'] !== undefined && (await this.connection(flags)).apiKey?.startsWith('pk_')) {
      throw usageError(
        '--expires-in reads the merchant\'s clock, which needs a secret key: drop --expires-in (the session then expires ' +
          'in 24 hours), or use a secret key (sk_...).',
      )
    }
    const client = await this.client(flags)
    const idempotencyKey = flags['idempotency-key'] ?? newIdempotencyKey()
    // The simulator checks the expiry window against the merchant's clock,
    // which a clock advance may have moved far from this machine's time.
    const expiresAt = flags['expires-in'] === undefined ? undefined : expiresAtFrom((await client.getClock()).now, flags['expires-in'])
    const session = await client
      .createCheckoutSession(
        {
          ...(flags.amount === undefined ? { quote: flags.quote } : { amount: flags.amount, currency: 'FJD' }),
          successUrl: flags['success-url'],
          cancelUrl: flags['cancel-url'],
          metadata,
          customerEmail: flags['customer-email'],
          expiresAt,
        },
        idempotencyKey,
      )
      .catch((error: unknown) => {
        throw withRetryHint(error, idempotencyKey, 'The session may have been created')
      })
    this.printFields(checkoutSessionFields(session))
    return session
  }
}
