import type { MerchantState } from '../client/bula-client.js'
import { inputName, readJsonFile, STANDARD_STREAM } from '../cli/files.js'
import { bulaCommand } from '../cli/launch-command.js'
import { ApiError } from '../errors.js'
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../json-depth.js'
import { STATE_IMPORT_LIMIT_BYTES } from './limits.js'

/**
 * Reads a state file for `bula state import`, or standard input for `-`.
 * Only the envelope is checked here, so that a wrong file is named before
 * anything is sent; the simulator checks the rest (that it holds this
 * merchant, and only it) and names the part it refuses.
 */
export async function readStateFile(file: string): Promise<MerchantState> {
  const name = inputName(file)
  const state = (await readJsonFile(file, 'file', {
    maxBytes: STATE_IMPORT_LIMIT_BYTES,
    tooLarge: 'the simulator imports a merchant\'s state of up to that size (about 28,000 Checkout Sessions).',
    what: 'a state file',
  })) as Partial<MerchantState> | null
  if (state?.format !== 'bula-state' || state.version !== 1 || typeof state.collections !== 'object' || state.collections === null) {
    throw new ApiError(0, 'invalid_file', `${name} is not a bula state file of version 1 (written by \`${bulaCommand('state export')}\`).`, 'file')
  }
  // `bula serve --export-on-exit` writes every merchant, and no merchantId.
  if (typeof state.merchantId !== 'string') {
    // `--import` reads a file only: standard input's copy has to be saved first.
    const start = file === STANDARD_STREAM ? 'save it to a file and start a simulator from that' : 'start a simulator from it'
    const given = file === STANDARD_STREAM ? 'FILE' : file
    throw new ApiError(
      0,
      'invalid_file',
      `${name} holds a whole simulator, not one merchant: ${start} with \`${bulaCommand(`serve --import ${given}`)}\` or \`${bulaCommand(`exec --import ${given}`)}\`.`,
      'file',
    )
  }
  // JSON.parse reads any depth; sending it means a JSON.stringify, which recurses, and the simulator would refuse it anyway.
  if (nestsDeeperThan(state, MAX_BODY_DEPTH)) {
    throw new ApiError(0, 'invalid_file', `${name} nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep; a state file nests about six.`, 'file')
  }
  return state as MerchantState
}

/**
 * How many objects a state file holds, over every collection but the
 * merchant's own settings and clock: the count an import of it answers.
 */
export const countObjects = ({ collections: { merchants: _settings, ...objects } }: MerchantState): number =>
  Object.values(objects).reduce((total, list) => total + list.length, 0)
