import { afterAll, expect } from 'vitest'
import { takeViolations } from '../helpers/conformance.js'

// Each test file ends by asserting that every answer it received through
// call() matched /openapi.json (test/helpers/conformance.ts, issue 13).
afterAll(() => {
  expect(takeViolations(), 'answers that /openapi.json does not describe').toEqual([])
})
