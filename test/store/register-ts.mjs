// `node --import ./test/store/register-ts.mjs script.ts` runs a TypeScript script (see ts-hooks.mjs).
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url)
