import { fork } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// The durable baseline of `npm run bench` (bench/baseline-server.mjs with a
// data file): issue 18's create target is judged against it, so it must
// really store every session before its 201, as the simulator does.
const SCRIPT = path.resolve(import.meta.dirname, '../../bench/baseline-server.mjs')
const MIB = 1 << 20

describe('the bench durable baseline', () => {
  let folder: string
  let file: string
  let baseUrl: string
  let child: ReturnType<typeof fork>

  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'bula-durable-baseline-'))
    file = path.join(folder, 'sessions.jsonl')
    child = fork(SCRIPT, [file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    baseUrl = await new Promise<string>((resolve) => child.once('message', (message: { baseUrl: string }) => resolve(message.baseUrl)))
  })

  afterAll(async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.send({ type: 'close' })
    await exited
    await rm(folder, { recursive: true, force: true })
  })

  const create = (amount: number) =>
    fetch(`${baseUrl}/v1/checkout-sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount, currency: 'FJD' }) })

  it('answers each create only once its session is in the file, in a file grown a mebibyte at a time', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => create(100 + n)))
    const sessions = await Promise.all(answers.map(async (answer) => ({ status: answer.status, body: (await answer.json()) as { id: string; amount: number } })))
    expect(sessions.every(({ status }) => status === 201)).toBe(true)

    const bytes = await readFile(file)
    expect(bytes.length).toBe(MIB)
    const text = bytes.toString('utf8').replace(/\0+$/, '')
    const stored = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string; amount: number })
    expect(new Set(stored.map(({ id }) => id))).toEqual(new Set(sessions.map(({ body }) => body.id)))
    expect(stored.map(({ amount }) => amount).sort((a, b) => a - b)).toEqual(sessions.map(({ body }) => body.amount).sort((a, b) => a - b))
  })

  it('refuses a body the schema refuses, and stores nothing for it', async () => {
    const before = (await readFile(file)).toString('utf8').replace(/\0+$/, '')
    const answer = await create(-5)
    expect(answer.status).toBe(400)
    expect((await readFile(file)).toString('utf8').replace(/\0+$/, '')).toBe(before)
  })

  it('grows the file by another mebibyte when the lines reach the end of the first', async () => {
    const lineBytes = Buffer.byteLength(JSON.stringify({ id: `cs_${'0'.repeat(36)}`, status: 'pending', mode: 'test', currency: 'FJD', amount: 100 })) + 1
    for (let sent = 0; sent < Math.ceil(MIB / lineBytes); sent += 200) {
      await Promise.all(Array.from({ length: 200 }, () => create(100)))
    }
    const bytes = await readFile(file)
    expect(bytes.length).toBe(2 * MIB)
    const text = bytes.toString('utf8').replace(/\0+$/, '')
    expect(text.endsWith('\n')).toBe(true)
    expect(text.split('\n').filter(Boolean).every((line) => JSON.parse(line).status === 'pending')).toBe(true)
  })
})
