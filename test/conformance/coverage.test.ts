import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CASES, DEPARTURES, NOT_SHOWN, SPEC_RULES, SPEC_SECTIONS, UNOBSERVABLE_RULES, sectionTitle, type SpecSection } from '../../src/conformance/index.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

/**
 * The service interface, which lives beside the project (`shared/spec/`)
 * rather than in it: the nearest one up from the repository, if any.
 */
function findSpec(): string | undefined {
  for (let dir = ROOT; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'shared', 'spec', 'service-interface.md')
    if (existsSync(file)) return file
    if (path.dirname(dir) === dir) return undefined
  }
}

const covered = (section: SpecSection): string[] => {
  const inSection = SPEC_SECTIONS.filter((each) => each === section || each.parent === section.heading)
  const rules = SPEC_RULES.filter((rule) => inSection.includes(rule.section)).map((rule) => rule.id as string)
  return CASES.filter((item) => item.rules.some((rule) => rules.includes(rule))).map((item) => item.id)
}

describe('the conformance suite covers the spec', () => {
  it('every section (## and ###) has at least one case', () => {
    expect(SPEC_SECTIONS.filter((section) => covered(section).length === 0).map(sectionTitle)).toEqual([])
  })

  it('every rule has a case, unless no HTTP client can observe it', () => {
    const unobservable = new Set(UNOBSERVABLE_RULES.map((item) => item.rule))
    const uncovered = SPEC_RULES.filter((rule) => !unobservable.has(rule.id) && !CASES.some((item) => item.rules.includes(rule.id)))
    expect(uncovered.map((rule) => `${rule.id}: ${rule.text}`)).toEqual([])
  })

  it('case ids are unique and shaped section/rule', () => {
    const ids = CASES.map((item) => item.id)
    expect(ids.filter((id) => !/^[a-z-]+\/[a-z0-9-]+$/.test(id))).toEqual([])
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
    expect(ids.length).toBeGreaterThanOrEqual(80)
  })

  const spec = findSpec()
  it.skipIf(spec === undefined)('lists exactly the headings of shared/spec/service-interface.md, in its order (skipped where the spec is not beside the repository)', () => {
    const text = readFileSync(spec!, 'utf8')
    let parent = ''
    const headings = text.split('\n').flatMap((line) => {
      const match = /^(#{1,3}) (.+)$/.exec(line)
      if (!match) return []
      if (match[1]!.length === 2) parent = match[2]!
      return [match[1]!.length === 3 ? `${parent} › ${match[2]}` : match[2]!]
    })
    expect(SPEC_SECTIONS.map(sectionTitle)).toEqual(headings)
  })

  it.skipIf(spec === undefined)('lists every "not shown" of the spec with the simulator\'s choice', () => {
    const text = readFileSync(spec!, 'utf8')
    // One entry per "…: not shown"; the Errors table's "(status not shown)" is the sentence below it again.
    expect(NOT_SHOWN.length).toBe(text.match(/(?<!\(status )not shown/g)!.length)
  })

  it('links each "not shown" choice and each departure to a heading that exists in docs/', () => {
    const broken = [...NOT_SHOWN.map((item) => ({ topic: item.topic, doc: item.doc })), ...DEPARTURES.map((item) => ({ topic: item.rules.join(), doc: item.doc }))].filter((item) => {
      const [file, anchor] = item.doc.split('#')
      const text = readFileSync(path.join(ROOT, file!), 'utf8')
      const anchors = text.split('\n').filter((line) => line.startsWith('#')).map((line) => line.replace(/^#+ /, '').toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'))
      return anchor !== undefined && !anchors.includes(anchor)
    })
    expect(broken.map((item) => `${item.topic} → ${item.doc}`)).toEqual([])
  })
})
