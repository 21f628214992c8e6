import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')

// Issue 14: package.json said MIT, but there was no LICENSE file to say what that grants and who holds it.
describe('the licence', () => {
  it('is the MIT licence that package.json names, held by the Bula contributors', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { license: string }
    const text = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')
    expect(manifest.license).toBe('MIT')
    expect(text.split('\n')[0]).toBe('MIT License')
    expect(text).toMatch(/^Copyright \(c\) 20\d\d Bula contributors$/m)
    expect(text.replace(/\s+/g, ' ')).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy of this software')
    expect(text.replace(/\s+/g, ' ')).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND')
  })
})
