/** A key as the API shows it once made (`masked`, `sk_test_…X6bL`): its prefix and last four characters, never whole. */
export const maskedKey = (prefix: string, last4: string): string => `${prefix}…${last4}`
