import { execa } from 'execa'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { freePort } from '../helpers/ports.js'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestWithHost } from '../helpers/host-request.js'
import { expectMode } from '../helpers/platform.js'
import { BIN } from '../helpers/serve-process.js'

// No container engine runs here: the Dockerfile's own CMD and HEALTHCHECK are
// run as plain processes, so the parts that can rot without one are checked
// (docs/testing-and-ci.md, "In a container or a compose network").

const ROOT = path.resolve(import.meta.dirname, '../..')
const dockerfile = await readFile(path.join(ROOT, 'Dockerfile'), 'utf8')

/** The JSON (exec form) array of the last instruction `name` in the final stage. */
function execForm(name: 'CMD' | 'ENTRYPOINT' | 'HEALTHCHECK'): string[] {
  const lines = dockerfile.split('\n').filter((line) => line.startsWith(`${name} `))
  const json = /\[.*\]$/.exec(lines.at(-1) ?? '')?.[0]
  if (!json) throw new Error(`The Dockerfile has no ${name} in exec form`)
  return JSON.parse(json) as string[]
}

let dir: string
let port: number
let serve: ReturnType<typeof execa>
/** The HEALTHCHECK command, at this test's port. */
let healthcheck: string[]

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-docker-'))
  port = await freePort()
  // The container's paths and port, moved to this test's: the volume is a temp folder.
  const local = (arg: string) => arg.replace('/data/', `${dir}/`).replace('4111', String(port))
  const [node, script, ...fromEntrypoint] = execForm('ENTRYPOINT')
  expect([node, script]).toEqual(['node', 'bin/run.js'])
  serve = execa('node', [BIN, ...fromEntrypoint, ...execForm('CMD').map(local)], { reject: false, stdin: 'ignore', env: { NODE_ENV: 'production' } })
  healthcheck = execForm('HEALTHCHECK').map(local)
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if ((await execa(healthcheck[0]!, healthcheck.slice(1), { reject: false })).exitCode === 0) return
  }
  throw new Error(`bula serve with the Dockerfile's CMD did not answer its HEALTHCHECK: ${(await serve.kill(), (await serve).all ?? '')}`)
}, 60_000)

afterAll(async () => {
  serve?.kill('SIGTERM')
  await serve
  await rm(dir, { recursive: true, force: true })
})

describe('the Dockerfile', () => {
  it('runs as the unprivileged node user, with the data on the /data volume and port 4111 exposed', () => {
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/^VOLUME \/data$/m)
    expect(dockerfile).toMatch(/^EXPOSE 4111$/m)
    expect(execForm('CMD')).toEqual(expect.arrayContaining(['serve', '--host', '0.0.0.0', '--data', '/data/bula.json', '--no-save-profile']))
  })

  it('its CMD serves and its HEALTHCHECK command passes', async () => {
    expect((await execa(healthcheck[0]!, healthcheck.slice(1), { reject: false })).exitCode).toBe(0)
  })

  it('takes requests for the compose names bula and app, and refuses any other name', async () => {
    const base = `http://127.0.0.1:${port}`
    for (const host of [`bula:${port}`, `app:${port}`, `localhost:${port}`]) {
      expect((await requestWithHost(base, host, { path: '/_sim/health' })).status, host).toBe(200)
    }
    const refused = await requestWithHost(base, `attacker.example:${port}`, { path: '/_sim/health' })
    expect(refused.status).toBe(403)
    expect(refused.json.error.code).toBe('host_not_allowed')
  })

  it('keeps its data file on the volume, readable by its user only', async () => {
    await expectMode(path.join(dir, 'bula.json'), 0o600)
  })

  it('stops on SIGTERM (docker stop), after which the HEALTHCHECK fails', async () => {
    serve.kill('SIGTERM')
    expect((await serve).exitCode).toBe(0)
    expect((await execa(healthcheck[0]!, healthcheck.slice(1), { reject: false })).exitCode).toBe(1)
  })
})
