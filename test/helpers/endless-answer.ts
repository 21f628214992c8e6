import type { ServerResponse } from 'node:http'

/**
 * Answers 200 with a JSON string that never ends (`{"x":"aaa…`), 1 MiB at a
 * time, until the client hangs up: what a client must stop reading.
 * Returns how many bytes went out so far.
 */
export function answerForever(response: ServerResponse): () => number {
  let streamed = 0
  const chunk = Buffer.alloc(1024 * 1024, 'a')
  response.writeHead(200, { 'content-type': 'application/json' })
  response.write('{"x":"')
  const pump = (): void => {
    while (!response.destroyed) {
      streamed += chunk.length
      if (!response.write(chunk)) return void response.once('drain', pump)
    }
  }
  response.once('close', () => response.removeAllListeners('drain'))
  pump()
  return () => streamed
}
