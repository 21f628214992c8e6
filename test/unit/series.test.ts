import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { describe, expect, it, vi } from 'vitest'
import { series } from '../../server/http/series.js'

const req = {} as Request
const res = {} as Response

/** Runs `handler` and resolves with what it passed to its own next, once it has (a rejection is caught a turn later). */
function run(handler: RequestHandler): Promise<unknown[]> {
  return new Promise((resolve) => {
    handler(req, res, ((...args: unknown[]) => resolve(args)) as NextFunction)
  })
}

describe('series', () => {
  it('runs every handler in order, then the next layer, once', async () => {
    const seen: string[] = []
    const step = (name: string): RequestHandler => (_req, _res, next) => {
      seen.push(name)
      next()
    }
    const done = vi.fn()
    series(step('a'), step('b'), step('c'))(req, res, done)
    expect(seen).toEqual(['a', 'b', 'c'])
    expect(done).toHaveBeenCalledTimes(1)
    expect(done).toHaveBeenCalledWith()
  })

  it('waits for a handler that calls next later', async () => {
    const seen: string[] = []
    const later: RequestHandler = (_req, _res, next) => void setImmediate(() => (seen.push('later'), next()))
    const after: RequestHandler = (_req, _res, next) => (seen.push('after'), next())
    expect(await run(series(later, after))).toEqual([])
    expect(seen).toEqual(['later', 'after'])
  })

  it("leaves with next(error) or next('route'), and runs no handler after it", async () => {
    const after = vi.fn()
    const failure = new Error('refused')
    expect(await run(series((_req, _res, next) => next(failure), after))).toEqual([failure])
    expect(await run(series((_req, _res, next) => next('route'), after))).toEqual(['route'])
    expect(after).not.toHaveBeenCalled()
  })

  it('passes a throw and a rejected promise on as next(error)', async () => {
    const after = vi.fn()
    const thrown = new Error('thrown')
    const rejected = new Error('rejected')
    expect(await run(series(() => {
      throw thrown
    }, after))).toEqual([thrown])
    expect(await run(series(async () => {
      await Promise.resolve()
      throw rejected
    }, after))).toEqual([rejected])
    expect(after).not.toHaveBeenCalled()
  })

  it('stops where a handler answers without calling next', async () => {
    const after = vi.fn()
    const done = vi.fn()
    series(() => {}, after)(req, res, done)
    await new Promise((resolve) => setImmediate(resolve))
    expect(after).not.toHaveBeenCalled()
    expect(done).not.toHaveBeenCalled()
  })
})
