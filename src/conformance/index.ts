/**
 * `bula conformance` as a library: the suite of the service interface's
 * rules, run over HTTP against any base URL (docs/conformance.md).
 */
export { runConformance, selectCases } from './run.js'
export { CASES, sectionOf } from './cases/index.js'
export { DEPARTURES, NOT_SHOWN, SPEC_RULES, SPEC_SECTIONS, UNOBSERVABLE_RULES, sectionTitle, type RuleId, type SpecRule, type SpecSection } from './spec-rules.js'
export { TRANSFORMERS, normalizeSteps } from './transformers.js'
export { compareRecordings, diffJson, readRecording, recordingPath, writeRecording } from './snapshots.js'
export type { CaseRecording, CaseResult, ConformanceCase, ConformanceOptions, ConformanceResult, Difference, Need, Outcome } from './types.js'
export { renderCoverageDoc } from './coverage-doc.js'
