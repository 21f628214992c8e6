import { ApiError } from '../errors.js'

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
 * A stream that is not a simulator's: a line or message past
 * SseParser.MAX_MESSAGE_CHARS. Reconnecting would only read it again, so
 * `bula listen` stops on it (unexpected_response, as for any answer that is
 * not the simulator's).
 */
export class NotAnEventStreamError extends ApiError {
  constructor(message: string) {
    super(0, 'unexpected_response', message)
  }
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
  /**
   * The most a line, or a message's data lines together, may hold. The
   * simulator's events are far smaller; a stream that goes past it is not
   * one (a broken or hostile server at the base URL), and is refused rather
   * than held in memory until the process runs out of it.
   */
  static readonly MAX_MESSAGE_CHARS = 16 * 1024 * 1024

  private buffer = ''
  private lastEventId: string | undefined
  private event = ''
  private data: string[] = []
  /** The characters of `data`, with the line ends that will join them. */
  private dataChars = 0
  /** A CR ended the previous chunk: an LF starting this one belongs to it. */
  private pendingCr = false

  push(chunk: string): SseMessage[] {
    if (chunk === '') return []
    let text = chunk
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1)
    this.pendingCr = text.endsWith('\r')
    this.buffer += text
    // No line end in this chunk: nothing to split, and splitting the whole buffer again for each chunk of one long
    // line would take time in proportion to the square of its length.
    if (!/[\r\n]/.test(text)) {
      this.refuseIfOver(this.buffer.length)
      return []
    }
    const messages: SseMessage[] = []
    const lines = this.buffer.split(/\r\n|\r|\n/)
    // The last piece has no line end yet; a trailing CR was split off as a line end above.
    this.buffer = lines.pop() ?? ''
    this.refuseIfOver(this.buffer.length)
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
    if (field === 'data') {
      this.data.push(value)
      this.dataChars += value.length + 1
      this.refuseIfOver(this.dataChars)
    }
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
    this.dataChars = 0
    return message
  }

  private refuseIfOver(chars: number): void {
    if (chars > SseParser.MAX_MESSAGE_CHARS) {
      throw new NotAnEventStreamError(`The event stream sent a message of over ${SseParser.MAX_MESSAGE_CHARS / 1024 / 1024} MiB: that is not a Bula simulator's stream.`)
    }
  }
}

/** The messages of an event-stream body, as they arrive; ends with the body. */
export async function* readSseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const parser = new SseParser()
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    yield* parser.push(text)
  }
}
