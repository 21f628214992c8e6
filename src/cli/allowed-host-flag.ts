import { Flags } from '@oclif/core'

/** `--allowed-host NAME` of `bula serve` and `bula exec`: the names are checked by startServer. */
export const allowedHostFlag = Flags.string({
  description:
    'A host name the simulator also answers to, besides localhost and IP addresses (say, a compose service); ' +
    'test mode then accepts http://NAME URLs too. Repeatable.',
  multiple: true,
  // One name per flag: `bula exec --allowed-host app npm test` must not take `npm` and `test` as names.
  multipleNonGreedy: true,
  helpValue: '<name>',
})
