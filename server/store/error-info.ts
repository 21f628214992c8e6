/** The errno code of a failed file operation (ENOENT, EEXIST, ...), if any. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
