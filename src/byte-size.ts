/** A byte limit as people read it: 1048576 → "1 MiB", 16384 → "16 KiB". */
export const byteSize = (bytes: number): string => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`)
