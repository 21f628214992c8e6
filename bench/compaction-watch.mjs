// Whether a compaction ended during one of the bench's runs: it ends by
// cutting the journal short (server/store/journal-writer.ts), and such a run
// paid for some or all of rendering a whole snapshot, on the simulator's one
// thread.
import { stat } from 'node:fs/promises'
import { clearInterval, setInterval } from 'node:timers'

/** The journal's size on disk (its lines and the zeros of its last extent); 0 before it exists. */
export async function journalBytes(dataFile) {
  try {
    return (await stat(`${dataFile}.journal`)).size
  } catch (error) {
    if (error.code === 'ENOENT') return 0
    throw error
  }
}

/** Watches the journal of `dataFile` every `everyMs`; stop() answers whether it was ever cut short meanwhile. */
export function watchCompactions(dataFile, everyMs = 100) {
  let last = null
  let compacted = false
  // One stat at a time, in order: two racing stats could see the sizes the wrong way round.
  let checked = Promise.resolve()
  const check = () => {
    checked = checked.then(async () => {
      const size = await journalBytes(dataFile)
      if (last !== null && size < last) compacted = true
      last = size
    })
    return checked
  }
  check()
  const timer = setInterval(check, everyMs)
  return {
    async stop() {
      clearInterval(timer)
      await check()
      return compacted
    },
  }
}
