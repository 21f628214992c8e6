import { describe, expect, it } from 'vitest'
import { bulaCommand, withLaunchedCommands } from '../../src/cli/launch-command.js'

const underNpx = { npm_command: 'exec' }

describe('a hint\'s bula command, as the CLI was started', () => {
  it('is `npx bula …` under npx, npm exec or a package script (npm start, npm run), `bula …` otherwise (a global install, npm link)', () => {
    expect(bulaCommand('faults clear', underNpx)).toBe('npx bula faults clear')
    expect(bulaCommand('faults clear', { npm_command: 'start' })).toBe('npx bula faults clear')
    expect(bulaCommand('faults clear', { npm_command: 'run-script' })).toBe('npx bula faults clear')
    expect(bulaCommand('faults clear', {})).toBe('bula faults clear')
  })

  it('rewrites the quoted commands of text written elsewhere, bare or with npx, and nothing else', () => {
    const text = 'Start it with `npx bula serve --port 4111`, or `bula login --api-key`; the bula CLI reads it.'
    expect(withLaunchedCommands(text, underNpx)).toBe('Start it with `npx bula serve --port 4111`, or `npx bula login --api-key`; the bula CLI reads it.')
    expect(withLaunchedCommands(text, {})).toBe('Start it with `bula serve --port 4111`, or `bula login --api-key`; the bula CLI reads it.')
  })
})
