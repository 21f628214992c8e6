import type { JobRecord } from '../clock/job.js'
import type { ApiKeyRecord } from '../domain/api-key.js'
import type { MerchantRecord } from '../domain/merchant.js'
import type { IdempotencyRecord } from '../services/idempotency.js'
import type { IndexSpec } from './types.js'

/** Every collection the simulator keeps, and the type of its documents. */
export type Collections = {
  merchants: MerchantRecord
  apiKeys: ApiKeyRecord
  idempotency: IdempotencyRecord
  jobs: JobRecord
}

export const COLLECTION_NAMES = ['merchants', 'apiKeys', 'idempotency', 'jobs'] as const satisfies readonly (keyof Collections)[]

export const INDEXES: IndexSpec<Collections> = {
  unique: {
    apiKeys: { byHash: (key) => key.hash },
  },
  groups: {
    apiKeys: { byMerchant: (key) => key.merchantId },
  },
}
