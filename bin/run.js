#!/usr/bin/env node
import { execute, settings } from '@oclif/core'

// oclif maps dist/ back to the TypeScript sources when NODE_ENV is test or
// development (vitest sets it); the built files are the ones to run.
settings.enableAutoTranspile = false

await execute({ dir: import.meta.url })
