import { z } from 'zod'

/** `GET /_sim/health`: answered without a key, so scripts can wait for the simulator. */
export const healthSchema = z.object({ status: z.literal('ok'), version: z.string() })

/** `GET /openapi.json`: an OpenAPI 3.1 document, generated from these schemas (docs/openapi.md). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.record(z.string(), z.unknown())),
})
