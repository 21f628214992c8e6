/** This machine's loopback names as a URL's `hostname` gives them (IPv6 in brackets). */
const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

/** Whether a URL's `hostname` names this machine's loopback interface. */
export const isLoopbackHostname = (hostname: string): boolean => LOOPBACK_HOSTNAMES.includes(hostname)
