import { afterAll, describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/http.js'
import { fuzzRoute, listRoutes } from './fuzz-kit.js'

/** Per route: about 30 routes, 20–30 s on 2 cores. */
const RUNS = 40

const logged: string[] = []
const server = await startTestServer({ log: (line) => logged.push(line) })
const routes = listRoutes(server).filter((route) => route.path.startsWith('/_sim'))
afterAll(() => server.close())

describe('fuzzing the simulator surface (/_sim)', () => {
  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(25)
  })

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: never a 5xx, always JSON, the envelope on errors', async (_name, route) => {
    const loggedBefore = logged.length
    await fuzzRoute(server.baseUrl, route, RUNS)
    expect(logged.slice(loggedBefore).filter((line) => /internal error/.test(line))).toEqual([])
  })
})
