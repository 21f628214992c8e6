export function journalBytes(dataFile: string): Promise<number>
export function watchCompactions(dataFile: string, everyMs?: number): { stop(): Promise<boolean> }
