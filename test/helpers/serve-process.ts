import { execa, type ResultPromise } from 'execa'
import { createInterface } from 'node:readline'
import path from 'node:path'

export const BIN = path.resolve(import.meta.dirname, '../../bin/run.js')

export interface DemoKeyPair {
  merchantId: string
  name: string
  secret: string
  publishable: string
}

export interface ServeProcess {
  baseUrl: string
  demo: { business: DemoKeyPair; individual: DemoKeyPair } | null
  process: ResultPromise
  /** stderr so far (request log lines, warnings). */
  stderr(): string
  /** SIGTERM and wait: a graceful stop; resolves with the exit code. */
  stop(): Promise<number | undefined>
  /** SIGKILL and wait: a crash. */
  kill9(): Promise<void>
}

/**
 * Runs the built `bula serve` in its own process on a free port and waits
 * for its JSON ready line.
 */
export async function startServe(
  options: { dataFile?: string; memory?: boolean; env?: Record<string, string>; args?: string[] } = {},
): Promise<ServeProcess> {
  const args = ['serve', '--port', '0', '--json', '--no-save-profile', ...(options.args ?? [])]
  if (options.memory) args.push('--memory')
  else if (options.dataFile) args.push('--data', options.dataFile)
  const child = execa('node', [BIN, ...args], { env: options.env, reject: false, buffer: false, stdin: 'ignore' })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const lines = createInterface({ input: child.stdout! })
  const ready = await new Promise<{ baseUrl: string; demo: ServeProcess['demo'] }>((resolve, reject) => {
    lines.once('line', (line) => {
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`serve printed a line that is not JSON: ${line}`))
      }
    })
    void child.then((result) => reject(new Error(`serve exited with ${result.exitCode} before ready: ${stderr}`)))
  })
  const waitExit = async (): Promise<number | undefined> => (await child).exitCode
  return {
    baseUrl: ready.baseUrl,
    demo: ready.demo,
    process: child,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGTERM')
      return waitExit()
    },
    kill9: async () => {
      child.kill('SIGKILL')
      await waitExit()
    },
  }
}
