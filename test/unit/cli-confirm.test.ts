import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { confirm, type Terminal } from '../../src/cli/confirm.js'
import { InterruptedError, toErrorReport } from '../../src/cli/error-report.js'

/** A terminal whose keys are typed once the question is shown, and what was written to it. */
function fakeTerminal(keys: string, isTTY = true): Terminal & { written: () => string } {
  const input = Object.assign(new PassThrough(), { isTTY, setRawMode: () => input })
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 })
  let written = ''
  let typed = false
  output.on('data', (chunk: Buffer) => {
    written += chunk.toString()
    if (written.includes('[y/N]') && !typed) {
      typed = true
      input.write(keys)
    }
  })
  return { input, output, written: () => written }
}

describe('confirm', () => {
  it('is true for y or yes, false for anything else', async () => {
    expect(await confirm('Go?', '--yes', fakeTerminal('y\r'))).toBe(true)
    expect(await confirm('Go?', '--yes', fakeTerminal('YES\r'))).toBe(true)
    expect(await confirm('Go?', '--yes', fakeTerminal('n\r'))).toBe(false)
    expect(await confirm('Go?', '--yes', fakeTerminal('\r'))).toBe(false)
  })

  it('takes Ctrl-D as no, ending the question\'s line', async () => {
    const terminal = fakeTerminal('\u0004')
    expect(await confirm('Go?', '--yes', terminal)).toBe(false)
    expect(terminal.written()).toContain('[y/N] \r\n')
  })

  it('ends on Ctrl-C with InterruptedError, exit 130, not readline\'s AbortError', async () => {
    const terminal = fakeTerminal('\u0003')
    const error = await confirm('Go?', '--yes', terminal).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(InterruptedError)
    expect(toErrorReport(error)).toEqual({
      envelope: { error: { code: 'interrupted', message: 'Cancelled with Ctrl-C: nothing was changed.' } },
      exitCode: 130,
    })
    expect(terminal.written()).toContain('[y/N] \r\n')
  })

  it('refuses to ask without a terminal, naming the flag that confirms', async () => {
    await expect(confirm('Go?', '--yes', fakeTerminal('y\r', false))).rejects.toThrow('No terminal to confirm on: add --yes to go ahead.')
  })
})
