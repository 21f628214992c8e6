import type { Mode } from '../src/schemas/index.js'
import type { ClockService } from './clock/clock-service.js'
import type { ApiKeyRecord } from './domain/api-key.js'
import type { MerchantRecord } from './domain/merchant.js'
import type { Collections } from './store/collections.js'
import type { Store } from './store/types.js'

/** What every service needs: the store and the merchants' clocks. */
export interface ServiceContext {
  store: Store<Collections>
  clock: ClockService
}

/** The authenticated caller of a request: its key decides the mode. */
export interface Caller {
  merchant: MerchantRecord
  key: ApiKeyRecord
  mode: Mode
}
