export type { JobRecord } from '../domain/records.js'
