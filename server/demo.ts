import type { ServiceContext } from './context.js'
import { signup } from './services/merchants.js'

export interface DemoKeys {
  merchantId: string
  name: string
  secret: string
  publishable: string
}

export interface DemoMerchants {
  business: DemoKeys
  individual: DemoKeys
}

/** The two merchants a fresh data file starts with (docs/simulator.md, "Start-up"), so the CLI works at once. */
export function seedDemoMerchants(ctx: ServiceContext): DemoMerchants {
  const make = (email: string, name: string, tier: 'business' | 'individual'): DemoKeys => {
    const { merchant, keys } = signup(ctx, { email, name, tier })
    return { merchantId: merchant.id, name: merchant.name, secret: keys.secret, publishable: keys.publishable }
  }
  return {
    business: make('demo-business@bula.test', 'Kava Kitchen Ltd', 'business'),
    individual: make('demo-individual@bula.test', "Mere's Masi Prints", 'individual'),
  }
}
