export function ratioText(ratio: number, target: number): string
