/** Whether a parsed JSON value is an object (not null, not an array): what a file or body of named fields must be. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
