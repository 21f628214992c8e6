/** One Server-Sent Events message, as dispatched at a blank line. */
export interface SseMessage {
  /** The last `id:` seen so far on the stream (SSE's "last event ID"), if any. */
  id: string | undefined
  /** The `event:` field; `message` when the message has none. */
  event: string
  /** The `data:` lines, joined with `\n`. */
  data: string
}

/**
 * An incremental parser of the `text/event-stream` format (WHATWG HTML,
 * "Server-sent events"): feed it text as it arrives, in chunks that may split
 * lines anywhere, and it returns the messages completed so far. Lines end in
 * LF, CRLF or CR; a line starting with `:` is a comment (heartbeats);
 * `retry:` and unknown fields are ignored; a block without `data:` lines
 * dispatches nothing but still sets the last event ID.
 */
export class SseParser {
  private buffer = ''
  private lastEventId: string | undefined
  private event = ''
  private data: string[] = []
  /** A CR ended the previous chunk: an LF starting this one belongs to it. */
  private pendingCr = false

  push(chunk: string): SseMessage[] {
    if (chunk === '') return []
    let text = chunk
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1)
    this.pendingCr = text.endsWith('\r')
    this.buffer += text
    const messages: SseMessage[] = []
    const lines = this.buffer.split(/\r\n|\r|\n/)
    // The last piece has no line end yet; a trailing CR was split off as a line end above.
    this.buffer = lines.pop() ?? ''
    for (const line of lines) {
      const message = this.line(line)
      if (message) messages.push(message)
    }
    return messages
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    // The spec ignores an id containing NUL, which could not round-trip as a header.
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value
    return undefined
  }

  private dispatch(): SseMessage | undefined {
    const message =
      this.data.length === 0 ? undefined : { id: this.lastEventId, event: this.event || 'message', data: this.data.join('\n') }
    this.event = ''
    this.data = []
    return message
  }
}

/** The messages of an event-stream body, as they arrive; ends with the body. */
export async function* readSseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const parser = new SseParser()
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    yield* parser.push(text)
  }
}
