// `bula serve` at the edges: a data folder it cannot write, a disk that
// fills up while it runs, a port someone else holds. Each must end in a
// clear message and the documented exit code or answer, never a hang, a
// stack trace or a lost acknowledged write.
import { execa } from 'execa'
import { randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { call } from '../helpers/http.js'
import { BIN, startServe, type ServeProcess } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

const edgesFolder = () => tempFolder('bula-edges-')

/** `bula serve` that is expected not to start: its exit code and its message as one line, within a bound so a hang fails the test. */
async function serveOnce(args: string[]) {
  const result = await execa('node', [BIN, 'serve', '--port', '0', '--json', '--no-save-profile', ...args], { reject: false, timeout: 15_000 })
  return { ...result, message: oneLine(result.stderr) }
}

/** oclif wraps an error to the terminal's width behind ` ›` markers, with colours: the message as one plain line. */
const oneLine = (stderr: string): string =>
  stripVTControlCharacters(stderr)
    .replace(/\s*›\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

/** Whether this process can create files in `folder`: root can in most places, so the tests below check rather than assume. */
async function canCreateFileIn(folder: string): Promise<boolean> {
  const probe = path.join(folder, `.bula-probe-${randomUUID()}`)
  try {
    await (await open(probe, 'wx')).close()
    await rm(probe)
    return true
  } catch {
    return false
  }
}

describe('a data location bula cannot write', () => {
  it('refuses, naming the file, when the data folder would be inside a regular file', async () => {
    const folder = await edgesFolder()
    await writeFile(path.join(folder, 'not-a-folder'), 'just a file')
    const dataFile = path.join(folder, 'not-a-folder', 'data.json')
    const result = await serveOnce(['--data', dataFile])
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.message).toContain(`Cannot create the folder of ${dataFile}`)
    expect(result.message).toContain(`${path.dirname(dataFile)} is a file, not a folder`)
  })

  // procfs answers ENOENT to mkdir although /proc exists: Node's recursive mkdir loops on that forever.
  it.runIf(process.platform === 'linux')('refuses, rather than hanging, where the system will not create the folder (/proc)', async () => {
    const dataFile = `/proc/bula-${randomUUID()}/data.json`
    const result = await serveOnce(['--data', dataFile])
    expect(result.timedOut).toBe(false)
    expect(result.exitCode).toBe(2)
    expect(result.message).toContain(`Cannot create the folder of ${dataFile}`)
  })

  it('refuses, naming the lock file, when the folder exists but takes no new files', async (context) => {
    // sysfs refuses new files even to root; where /sys is missing or writable there is no such folder to try.
    if (!(await stat('/sys').then((info) => info.isDirectory(), () => false)) || (await canCreateFileIn('/sys'))) {
      context.skip('no existing folder here refuses new files to this user (/sys is missing or writable)')
    }
    const dataFile = `/sys/bula-${randomUUID()}.json`
    const result = await serveOnce(['--data', dataFile])
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.message).toContain(`Cannot create the lock file ${dataFile}.lock`)
  })

  // A snapshot is renamed over the data file: `--data /dev/null` run as root replaced the system's /dev/null.
  it.runIf(process.platform === 'linux')('refuses a data path that is a named pipe or a device, naming it, and leaves it as it was', async () => {
    const folder = await edgesFolder()
    const pipe = path.join(folder, 'pipe')
    await execa('mkfifo', [pipe])
    const paths: [string, string][] = [[pipe, 'a named pipe']]
    // Making a device node needs root, which is also the only user that could replace a real one.
    if (process.getuid?.() === 0) {
      const device = path.join(folder, 'null')
      await execa('mknod', [device, 'c', '1', '3'])
      paths.push([device, 'a device'])
    }
    for (const [dataFile, kind] of paths) {
      const result = await serveOnce(['--data', dataFile])
      expect(result.timedOut).toBe(false)
      expect(result.exitCode).toBe(2)
      expect(result.message).toContain(`${dataFile} is ${kind}, not a data file.`)
      expect((await stat(dataFile)).isFile()).toBe(false)
      await expect(stat(`${dataFile}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
    }
  })
})

describe('a disk that fills up', () => {
  let mountPoint: string | undefined
  let serve: ServeProcess | undefined
  afterEach(async () => {
    await serve?.stop()
    if (mountPoint) await execa('umount', [mountPoint], { reject: false })
  })

  it('answers 503 storage_unavailable to writes and keeps serving reads; the retried write lands once, and a start on the full disk is refused', async (context) => {
    const folder = await edgesFolder()
    const mounted = process.platform === 'linux' ? await execa('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', folder], { reject: false }) : null
    if (mounted?.exitCode !== 0) context.skip(`needs a small tmpfs to fill, and mount is not permitted here: ${mounted?.stderr ?? process.platform}`)
    mountPoint = folder
    const dataFile = path.join(folder, 'data.json')
    const first = await startServe({ dataFile, args: ['--quiet'] })
    const { secret } = first.demo!.business
    // A clean stop empties the journal and the next start leaves it empty: its next line then needs a block of its own.
    await first.stop()
    serve = await startServe({ dataFile, args: ['--quiet'] })

    // Fill every free block.
    const filler = path.join(folder, 'filler')
    await writeFile(filler, Buffer.alloc(2 * 1024 * 1024)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOSPC') throw error
    })

    const idempotencyKey = randomUUID()
    const create = () =>
      call(serve!.baseUrl, 'POST', '/v1/checkout-sessions', { key: secret, body: { amount: 2500, currency: 'FJD' }, headers: { 'idempotency-key': idempotencyKey } })
    const refused = await create()
    expect(refused.status).toBe(503)
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
    expect(refused.body.error.code).toBe('storage_unavailable')
    expect(refused.body.error.message).toMatch(/not confirmed/)
    const signup = await call(serve.baseUrl, 'POST', '/_sim/merchants', { body: { email: 'full@example.test', name: 'Full Disk Ltd', tier: 'business' } })
    expect(signup.status).toBe(503)

    expect((await call(serve.baseUrl, 'GET', '/v1/merchants/me', { key: secret })).status).toBe(200)
    expect((await call(serve.baseUrl, 'GET', '/v1/checkout-sessions', { key: secret })).status).toBe(200)
    expect((await call(serve.baseUrl, 'GET', '/_sim/health')).status).toBe(200)

    // A second simulator on the full disk cannot even take its lock: refused with the reason.
    const otherFile = path.join(folder, 'other', 'data.json')
    await mkdir(path.dirname(otherFile)).catch(() => undefined)
    const refusedStart = await serveOnce(['--data', otherFile])
    expect(refusedStart.exitCode).toBe(2)
    expect(refusedStart.message).toContain(otherFile)
    expect(refusedStart.message).toMatch(/ENOSPC|no space/i)

    // Space again: the retry with the same Idempotency-Key gets the one session the refused call made, now durable.
    await rm(filler)
    const retried = await create()
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    const sessionId = retried.body.id as string

    await serve.kill9()
    serve = await startServe({ dataFile, args: ['--quiet'] })
    const after = await call(serve.baseUrl, 'GET', `/v1/checkout-sessions/${sessionId}`, { key: secret })
    expect(after.status).toBe(200)
    const list = await call(serve.baseUrl, 'GET', '/v1/checkout-sessions?limit=100', { key: secret })
    expect(list.body.data.filter((session: { amount: number }) => session.amount === 2500)).toHaveLength(1)
  })
})

describe('a port someone else holds', () => {
  it('exits with 3 and says which port, and leaves the data file free for the next start', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const { port } = holder.address() as { port: number }
    const dataFile = path.join(await edgesFolder(), 'data.json')
    try {
      const result = await execa('node', [BIN, 'serve', '--port', String(port), '--data', dataFile, '--json', '--no-save-profile'], { reject: false, timeout: 15_000 })
      expect(result.exitCode).toBe(3)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`)
      expect(result.stderr).toContain('--port')
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
    await expect(stat(`${dataFile}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
    expect(JSON.parse(await readFile(dataFile, 'utf8')).format).toBe('bula-data')
    const next = await startServe({ dataFile })
    try {
      expect((await call(next.baseUrl, 'GET', '/_sim/health')).status).toBe(200)
    } finally {
      await next.stop()
    }
  })
})

describe('a hand-edited data file', () => {
  it('refuses a document of the wrong shape at start, in the snapshot or in a journal line, naming it and changing nothing', async () => {
    const dataFile = path.join(await edgesFolder(), 'data.json')
    const first = await startServe({ dataFile })
    const secret = first.demo!.business.secret
    const invoice = await call(first.baseUrl, 'POST', '/v1/invoices', {
      key: secret,
      headers: { 'idempotency-key': randomUUID() },
      body: { customerName: 'Bob', items: [{ description: 'Kava', quantity: 2, unitPrice: 1000 }], dueDate: '2030-01-31' },
    })
    expect(invoice.status, JSON.stringify(invoice.body)).toBe(201)
    const invoiceId = (invoice.body as { id: number }).id
    expect(await first.stop()).toBe(0)

    // An edit that keeps the JSON valid and the document an object with its id: only the field's type is wrong.
    const data = JSON.parse(await readFile(dataFile, 'utf8'))
    const stored = Object.values(data.collections.invoices as Record<string, { invoiceId: number }>).find((doc) => doc.invoiceId === invoiceId)!
    Object.assign(stored, { items: null })
    const edited = `${JSON.stringify(data, null, 2)}\n`
    await writeFile(dataFile, edited)
    const refused = await serveOnce(['--data', dataFile])
    expect(refused.exitCode).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.message).toContain(
      `${dataFile}: collection "invoices", document "${(stored as unknown as { id: string }).id}" is damaged: Invalid \`invoices.items\`: `,
    )
    expect(refused.message).toContain('The file was not changed')
    expect(await readFile(dataFile, 'utf8')).toBe(edited)

    // The same in a journal line: the line is named, and neither file changes.
    Object.assign(stored, { items: [{ description: 'Kava', quantity: 2, unitPrice: 1000 }] })
    await writeFile(dataFile, `${JSON.stringify(data, null, 2)}\n`)
    const merchant = Object.values(data.collections.merchants as Record<string, { id: string }>)[0]!
    const line = `${JSON.stringify({ v: 1, ops: [['put', 'merchants', merchant.id, { ...merchant, balances: 'plenty' }]] })}\n`
    await writeFile(`${dataFile}.journal`, line)
    const fromJournal = await serveOnce(['--data', dataFile])
    expect(fromJournal.exitCode).toBe(2)
    expect(fromJournal.message).toContain(
      `${dataFile}.journal line 1: collection "merchants", document "${merchant.id}" is damaged: Invalid \`merchants.balances\`: `,
    )
    expect(await readFile(`${dataFile}.journal`, 'utf8')).toBe(line)

    // Put right, it starts, with every document as bula wrote it.
    await writeFile(`${dataFile}.journal`, '')
    const fixed = await startServe({ dataFile })
    try {
      expect((await call(fixed.baseUrl, 'GET', `/v1/invoices/${invoiceId}`, { key: secret })).status).toBe(200)
    } finally {
      await fixed.stop()
    }
  })
  it('keeps every Invoice when the invoice counter was removed from the file: a new Invoice takes a free id', async () => {
    const dataFile = path.join(await edgesFolder(), 'data.json')
    const invoiceBody = { customerName: 'Bob', items: [{ description: 'Kava', quantity: 2, unitPrice: 1000 }], dueDate: '2030-01-31' }
    const createInvoice = (baseUrl: string, key: string) =>
      call(baseUrl, 'POST', '/v1/invoices', { key, headers: { 'idempotency-key': randomUUID() }, body: invoiceBody })
    const first = await startServe({ dataFile })
    const kept = await createInvoice(first.baseUrl, first.demo!.business.secret)
    expect(kept.status).toBe(201)
    expect(await first.stop()).toBe(0)

    // The counter looks derived, so a hand edit may drop it; the counter then starts again from 0.
    const data = JSON.parse(await readFile(dataFile, 'utf8'))
    data.collections.counters = {}
    await writeFile(dataFile, `${JSON.stringify(data, null, 2)}\n`)
    const next = await startServe({ dataFile })
    try {
      const other = await call(next.baseUrl, 'POST', '/_sim/merchants', { body: { email: 'eve@example.fj', name: 'Eve', tier: 'business' } })
      const created = await createInvoice(next.baseUrl, (other.body as { keys: { secret: string } }).keys.secret)
      expect(created.status).toBe(201)
      expect((created.body as { id: number }).id).not.toBe((kept.body as { id: number }).id)
      const again = await call(next.baseUrl, 'GET', `/v1/invoices/${(kept.body as { id: number }).id}`, { key: first.demo!.business.secret })
      expect(again.status).toBe(200)
      expect(again.body).toMatchObject({ customerName: 'Bob' })
    } finally {
      await next.stop()
    }
  })
})
