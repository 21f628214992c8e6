import { Errors } from '@oclif/core'

/** oclif's exit code for a command line it cannot use. */
export const USAGE_EXIT_CODE = 2

/**
 * Wraps a parser of flag or argument text so that its error is a usage error
 * (exit 2, like oclif's own parse errors) rather than a failure (exit 1).
 */
export function usageParser<T>(parse: (input: string) => T): (input: string) => Promise<T> {
  return async (input) => {
    try {
      return parse(input)
    } catch (error) {
      throw usageError(error instanceof Error ? error.message : String(error))
    }
  }
}

export const usageError = (message: string): Errors.CLIError => new Errors.CLIError(message, { exit: USAGE_EXIT_CODE })
