import { describe, expect, it } from 'vitest'
import { readSseMessages, SseParser, type SseMessage } from '../../src/listen/sse.js'

/** Feeds the chunks one after another and collects every message. */
function parse(chunks: string[]): SseMessage[] {
  const parser = new SseParser()
  return chunks.flatMap((chunk) => parser.push(chunk))
}

const STREAM =
  'retry: 1000\n: connected\n\n' +
  'id: evt_1\nevent: payment.processing\ndata: {"event_id":"evt_1"}\n\n' +
  ': ping\n\n' +
  'id: evt_2\nevent: checkout_session.succeeded\ndata: {"event_id":"evt_2"}\n\n'

const EXPECTED: SseMessage[] = [
  { id: 'evt_1', event: 'payment.processing', data: '{"event_id":"evt_1"}' },
  { id: 'evt_2', event: 'checkout_session.succeeded', data: '{"event_id":"evt_2"}' },
]

describe('SseParser', () => {
  it('reads the simulator\'s stream, skipping the retry field, comments and heartbeats', () => {
    expect(parse([STREAM])).toEqual(EXPECTED)
  })

  it('gives the same messages however the text is split into chunks', () => {
    expect(parse(STREAM.split(''))).toEqual(EXPECTED)
    for (let cut = 1; cut < STREAM.length; cut += 7) {
      expect(parse([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED)
    }
  })

  it('accepts CRLF and CR line ends, also a CRLF split between two chunks', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n')
    expect(parse([crlf])).toEqual(EXPECTED)
    expect(parse([STREAM.replaceAll('\n', '\r')])).toEqual(EXPECTED)
    const firstCr = crlf.indexOf('\r')
    expect(parse([crlf.slice(0, firstCr + 1), crlf.slice(firstCr + 1)])).toEqual(EXPECTED)
    expect(parse(crlf.split(''))).toEqual(EXPECTED)
  })

  it('keeps a message until its blank line arrives', () => {
    const parser = new SseParser()
    expect(parser.push('id: evt_1\ndata: {}\n')).toEqual([])
    expect(parser.push('\n')).toEqual([{ id: 'evt_1', event: 'message', data: '{}' }])
  })

  it('joins data lines with a newline and strips only one space after the colon', () => {
    expect(parse(['data:first\ndata:  second\ndata\n\n'])).toEqual([{ id: undefined, event: 'message', data: 'first\n second\n' }])
  })

  it('keeps the last id for later messages, and takes an id from a block without data', () => {
    expect(parse(['id: evt_1\ndata: a\n\n', 'data: b\n\n', 'id: evt_9\n\n', 'event: x\ndata: c\n\n'])).toEqual([
      { id: 'evt_1', event: 'message', data: 'a' },
      { id: 'evt_1', event: 'message', data: 'b' },
      { id: 'evt_9', event: 'x', data: 'c' },
    ])
  })

  it('resets the event type after each message and ignores unknown fields and ids with NUL', () => {
    expect(parse(['event: a\nfoo: bar\nid: x\0y\ndata: 1\n\n', 'data: 2\n\n'])).toEqual([
      { id: undefined, event: 'a', data: '1' },
      { id: undefined, event: 'message', data: '2' },
    ])
  })
})

describe('SseParser limits', () => {
  const MIB = 1024 * 1024
  const over = `The event stream sent a message of over ${SseParser.MAX_MESSAGE_CHARS / MIB} MiB: that is not a Bula simulator's stream.`

  // Found by an adversarial pass: a server streaming one endless line had `bula listen` re-split all it had read on
  // every chunk (86 MB in a minute, RSS up to 680 MB).
  it('refuses a line that never ends once it passes the limit, reading each chunk once', () => {
    const parser = new SseParser()
    const chunk = 'A'.repeat(MIB)
    expect(parser.push('data: ')).toEqual([])
    for (let i = 1; i < SseParser.MAX_MESSAGE_CHARS / MIB; i++) expect(parser.push(chunk)).toEqual([])
    expect(() => parser.push(chunk)).toThrow(over)
  })

  it('refuses a message whose data lines together pass it, and takes one just under it', () => {
    const line = `data: ${'B'.repeat(MIB - 1)}\n`
    const parser = new SseParser()
    for (let i = 0; i < SseParser.MAX_MESSAGE_CHARS / MIB; i++) parser.push(line)
    expect(parser.push('\n')).toEqual([{ id: undefined, event: 'message', data: expect.any(String) }])
    expect(() => {
      for (let i = 0; i <= SseParser.MAX_MESSAGE_CHARS / MIB; i++) parser.push(line)
    }).toThrow(over)
  })
})

describe('readSseMessages', () => {
  it('decodes UTF-8 split across chunks and ends with the body', async () => {
    const bytes = new TextEncoder().encode('id: evt_1\nevent: t\ndata: {"name":"Kai Café 🌺"}\n\n')
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // One byte at a time splits every multi-byte character.
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]))
        controller.close()
      },
    })
    const messages: SseMessage[] = []
    for await (const message of readSseMessages(body)) messages.push(message)
    expect(messages).toEqual([{ id: 'evt_1', event: 't', data: '{"name":"Kai Café 🌺"}' }])
  })
})
