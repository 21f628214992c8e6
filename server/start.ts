import { once } from 'node:events'
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { bulaVersion } from '../src/package-root.js'
import { systemWallClock, type WallClock } from './clock/wall-clock.js'
import { createServiceContext, type ServiceContext } from './context.js'
import { seedDemoMerchants, type DemoMerchants } from './demo.js'
import { recordProblem } from './domain/records.js'
import { allowedHostName } from './domain/urls.js'
import { registerDeliveryJobs } from './events/delivery.js'
import { createApp } from './http/app.js'
import { answerClientErrors, answerConnect, refuseUnroutable } from './http/client-error.js'
import { registerCheckoutJobs } from './services/checkout-sessions.js'
import { registerIdempotencyPurge } from './services/idempotency.js'
import { registerPayoutJobs } from './services/payouts.js'
import { COLLECTION_NAMES, INDEXES, LAZY_COLLECTIONS, type Collections } from './store/collections.js'
import { readStateFile, replaceState, writeStateFile } from './state.js'
import { openStore } from './store/index.js'
import { StoreOpenError } from './store/types.js'

export interface StartOptions {
  port?: number
  host?: string
  /** The data file; omitted means memory only. */
  dataFile?: string
  wall?: WallClock
  log?: (line: string) => void
  logRequests?: boolean
  webhookTimeoutMs?: number
  /** A state file (`bula state export`) that replaces the data at start. */
  importFile?: string
  /** Where to write the state when the server closes. */
  exportOnExit?: string
  /**
   * Host names (`--allowed-host`) served besides localhost and IP addresses,
   * and accepted in http URLs in test mode, e.g. a compose service's name.
   */
  allowedHosts?: readonly string[]
  /**
   * False: the listening socket does not keep the process running on its own
   * (the in-process simulator of `bula-tools/testing`). Default true.
   */
  keepProcessAlive?: boolean
}

export interface RunningServer {
  baseUrl: string
  dataFile: string | null
  version: string
  /** The demo merchants' keys, only when the data was fresh (keys are shown once). */
  demo: DemoMerchants | null
  ctx: ServiceContext
  /** Stops accepting, finishes in-flight requests, flushes and closes the store. */
  close(): Promise<void>
}

/** Start-up refused for a reason the user can fix (port in use, data file refused). */
export class StartError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message)
    this.name = 'StartError'
  }
}

/**
 * `--export-on-exit` is written when the simulator stops, when nothing can be
 * done about a bad path any more: with `--memory` the state would be lost.
 * So a path that could never be written is refused at start.
 */
async function checkExportTarget(file: string): Promise<void> {
  const target = await stat(file).catch(() => undefined)
  if (target?.isDirectory()) throw new StartError(`Cannot export to ${file} on exit: it is a folder. Give a file name.`, 2)
  const place = target ? file : path.dirname(file)
  await access(place, constants.W_OK).catch((error: unknown) => {
    const { code } = error as NodeJS.ErrnoException
    // Said in words, not as the system's `ENOENT: no such file or directory, access '…'`.
    const why = code === 'ENOENT' ? `the folder ${place} does not exist` : code === 'EACCES' || code === 'EROFS' ? `${place} cannot be written` : (error as Error).message
    throw new StartError(`Cannot export to ${file} on exit: ${why}.`, 2)
  })
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const host = options.host ?? '127.0.0.1'
  const version = bulaVersion()
  let allowedHosts: string[]
  try {
    allowedHosts = (options.allowedHosts ?? []).map(allowedHostName)
  } catch (error) {
    throw new StartError((error as Error).message, 1)
  }
  if (options.exportOnExit) await checkExportTarget(options.exportOnExit)
  // Checked before the data file is opened: a refused file leaves it as it was, or never makes it.
  const imported = options.importFile
    ? await readStateFile(options.importFile, allowedHosts).catch((error: unknown) => {
        throw new StartError((error as Error).message, 2)
      })
    : undefined
  const { store } = await openStore<Collections>({
    file: options.dataFile,
    collections: COLLECTION_NAMES,
    indexes: INDEXES,
    lazy: LAZY_COLLECTIONS,
    warn: log,
    checkDocument: recordProblem,
  }).catch((error: unknown) => {
    // The data file is left as it is: the message names it and says why.
    throw error instanceof StoreOpenError ? new StartError(error.message, 2) : error
  })
  if (imported) replaceState(store, imported)
  const ctx = createServiceContext({
    store,
    wall: options.wall ?? systemWallClock,
    log,
    webhookTimeoutMs: options.webhookTimeoutMs,
    allowedHosts,
  })
  registerCheckoutJobs(ctx)
  registerIdempotencyPurge(ctx)
  registerDeliveryJobs(ctx)
  registerPayoutJobs(ctx)
  if (options.importFile) await store.commit()

  const logging = { log, logRequests: options.logRequests ?? true }
  const app = createApp({ ctx, version, ...logging, listenHost: host })
  // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; the Host check answers it with the envelope.
  const unroutable = refuseUnroutable(logging)
  // An Express app takes a third argument, called when its router cannot route the request (app.handle's
  // callback; without it, Express's own HTML 404). Its types declare only the two of a Node handler.
  const route = app as unknown as (req: IncomingMessage, res: ServerResponse, done: () => void) => void
  const server: Server = createServer({ requireHostHeader: false }, (req, res) => route(req, res, () => unroutable(req, res))).listen(options.port ?? 4111, host)
  server.on('clientError', answerClientErrors(logging))
  server.on('connect', answerConnect(logging))
  // An Expect other than 100-continue, which Node answers with a bare 417 unless told: HTTP lets a server ignore it.
  server.on('checkExpectation', app)
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))])
  } catch (error) {
    await store.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      throw new StartError(`Port ${options.port} on ${host} is in use. Stop the other process or pick another with --port (0 takes a free one).`, 3)
    }
    throw new StartError(`Cannot listen on ${host}:${options.port}: ${(error as Error).message}`, 1)
  }
  if (options.keepProcessAlive === false) server.unref()
  const { port } = server.address() as AddressInfo
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  ctx.urls.base = baseUrl
  // Seeded only once the port is ours, into data with no merchant yet: a start that failed to listen
  // leaves an empty data file, and the next start must still show the demo keys.
  const demo = store.size('merchants') === 0 && !options.importFile ? seedDemoMerchants(ctx) : null
  await store.commit()
  ctx.clock.start()

  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      // Event streams never end on their own: end them so close() need not wait.
      ctx.eventBus.emit('shutdown')
      server.closeIdleConnections()
      // In-flight requests get a few seconds; a client holding a connection open does not keep the simulator up.
      const force = setTimeout(() => server.closeAllConnections(), 5_000)
      await stopped
      clearTimeout(force)
      await ctx.clock.stop()
      try {
        if (options.exportOnExit) await writeStateFile(store, options.exportOnExit)
      } finally {
        // A failed export still lets go of the data file (its lock, a last snapshot).
        await store.close()
      }
    })()
    return closing
  }
  return { baseUrl, dataFile: store.file, version, demo, ctx, close }
}
