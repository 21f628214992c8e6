import { Flags } from '@oclif/core'
import { PAYMENT_OUTCOMES, PROVIDERS } from '../schemas/enums.js'

/** The customer stand-in's choices, the same whether it pays a Checkout Session or a sent Invoice. */
export const payFlags = {
  outcome: Flags.option({
    description: 'How the payment ends.',
    options: PAYMENT_OUTCOMES,
    default: 'succeeded' as const,
  })(),
  provider: Flags.option({ description: 'Provider the customer picks (default: card).', options: PROVIDERS })(),
}
