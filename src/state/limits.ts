/**
 * The largest state file `POST /_sim/state/import` takes, and so `bula state
 * import` sends: a merchant's export of about 100,000 Checkout Sessions
 * (570 bytes each). Every other route takes 1 MiB, which a merchant's own
 * export passes at about 1,800 sessions.
 */
export const STATE_IMPORT_LIMIT_BYTES = 64 * 1024 * 1024
