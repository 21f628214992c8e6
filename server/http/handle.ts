import type { Request, RequestHandler, Response } from 'express'
import type { ServiceContext } from '../context.js'

export interface Reply {
  status?: number
  body: unknown
  /** `body` as JSON text already (an idempotent result keeps it so): sent as it is. */
  json?: string
  headers?: Record<string, string>
}

/**
 * The one commit rule of every surface, JSON routes, hosted pages and the
 * dashboard alike: run the request, and unless it only reads (GET, HEAD),
 * wait until its changes are on disk (group commit) before anything is
 * answered. A refused write rejects with 503 `storage_unavailable`; each
 * surface renders that as it renders any other error.
 */
export async function runCommitted<T>(ctx: ServiceContext, req: Request, route: () => T | Promise<T>): Promise<T> {
  const outcome = await route()
  if (req.method !== 'GET' && req.method !== 'HEAD') await ctx.store.commit()
  return outcome
}

/**
 * Wraps a JSON route: runs and commits it (runCommitted), then answers. A
 * read commits nothing, so it never waits on another request's write. A
 * route that answers by itself (a file, an event stream) returns nothing.
 */
export function handle(ctx: ServiceContext, route: (req: Request, res: Response) => Reply | undefined | Promise<Reply | undefined>): RequestHandler {
  return async (req, res, next) => {
    try {
      const reply = await runCommitted(ctx, req, () => route(req, res))
      if (reply === undefined) return
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value)
      res.status(reply.status ?? 200)
      if (reply.json === undefined) res.json(reply.body)
      else {
        // What res.json sends, from text serialized already.
        if (!res.get('Content-Type')) res.set('Content-Type', 'application/json')
        res.send(reply.json)
      }
    } catch (error) {
      next(error)
    }
  }
}

/** A stored result replayed for a repeated Idempotency-Key says so in a header, as Stripe's API does. */
export const idempotentReply = (result: { status: number; body: unknown; replayed: boolean; json: string }): Reply => ({
  status: result.status,
  body: result.body,
  json: result.json,
  headers: result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
})
