import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { isJsonObject } from '../json.js'
import type { CaseRecording, Difference } from './types.js'

/** `<dir>/checkout-sessions/amount-max.json` for `checkout-sessions/amount-max`. */
export const recordingPath = (dir: string, caseId: string): string => path.join(dir, ...caseId.split('/')) + '.json'

/** Writes a case's recording as plain, reviewable JSON. */
export async function writeRecording(dir: string, recording: CaseRecording): Promise<void> {
  const file = recordingPath(dir, recording.case)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, `${JSON.stringify(recording, null, 2)}\n`)
}

/** A case's recording, or undefined when there is none. */
export async function readRecording(dir: string, caseId: string): Promise<CaseRecording | undefined> {
  let text: string
  try {
    text = await readFile(recordingPath(dir, caseId), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return JSON.parse(text) as CaseRecording
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/
const child = (at: string, key: string): string => (IDENTIFIER.test(key) ? (at ? `${at}.${key}` : key) : `${at}[${JSON.stringify(key)}]`)
const show = (value: unknown): string => {
  const text = JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** Every place where two JSON values differ, by JSON path. */
export function diffJson(caseId: string, recorded: unknown, actual: unknown, at = ''): Difference[] {
  if (recorded === undefined && actual === undefined) return []
  if (recorded === undefined) return [{ case: caseId, path: at, actual, message: `${at}: new, ${show(actual)}` }]
  if (actual === undefined) return [{ case: caseId, path: at, recorded, message: `${at}: missing, was ${show(recorded)}` }]
  if (Array.isArray(recorded) && Array.isArray(actual)) {
    const length = Math.max(recorded.length, actual.length)
    return Array.from({ length }, (_, index) => diffJson(caseId, recorded[index], actual[index], `${at}[${index}]`)).flat()
  }
  if (isJsonObject(recorded) && isJsonObject(actual)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(actual)])]
    return keys.flatMap((key) => diffJson(caseId, recorded[key], actual[key], child(at, key)))
  }
  if (JSON.stringify(recorded) === JSON.stringify(actual)) return []
  return [{ case: caseId, path: at, recorded, actual, message: `${at}: ${show(recorded)} → ${show(actual)}` }]
}

/**
 * The differences between a case's recording and this run. When either side
 * did not run the case (skipped), only that is reported, not each missing step.
 */
export function compareRecordings(caseId: string, recorded: CaseRecording | undefined, actual: CaseRecording): Difference[] {
  if (!recorded) return [{ case: caseId, path: '', actual: actual.outcome, message: 'no recording of this case (record it with --record)' }]
  if (recorded.outcome !== actual.outcome) {
    const reason = actual.reason ?? recorded.reason
    const head: Difference = {
      case: caseId,
      path: 'outcome',
      recorded: recorded.outcome,
      actual: actual.outcome,
      message: `outcome: ${recorded.outcome} → ${actual.outcome}${reason ? ` (${reason})` : ''}`,
    }
    if (recorded.outcome === 'skip' || actual.outcome === 'skip') return [head]
    return [head, ...diffJson(caseId, recorded.steps, actual.steps, 'steps')]
  }
  return diffJson(caseId, recorded.steps, actual.steps, 'steps')
}
