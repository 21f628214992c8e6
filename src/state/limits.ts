/**
 * The largest state file `POST /_sim/state/import` takes, and so `bula state
 * import` sends: a merchant's export of about 28,000 Checkout Sessions (570
 * bytes each). Every other route takes 1 MiB, which a merchant's own export
 * passes at about 1,800 sessions. Not more: the whole body is parsed and
 * checked on the simulator's one thread, and a hostile 16 MiB body already
 * holds it for seconds (docs/security.md, "State files").
 */
export const STATE_IMPORT_LIMIT_BYTES = 16 * 1024 * 1024
