/** A count with its noun in the right number: `1 object`, `2 objects`, `1 delivery`, `2 deliveries`. The CLI's messages and the simulator's pages and reports alike. */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`
