import { describe, expect, it } from 'vitest'
import { ratioText } from '../../bench/ratio-text.mjs'

// The bench's target rows print a ratio next to met or missed: the figure must never say the opposite of the verdict.
describe('the bench ratio text', () => {
  it('prints two decimals where they fall on the ratio\'s side of the target', () => {
    expect(ratioText(0.6543, 0.6)).toBe('0.65')
    expect(ratioText(0.57, 0.6)).toBe('0.57')
    expect(ratioText(0.6, 0.6)).toBe('0.60')
    expect(ratioText(0.6049, 0.6)).toBe('0.60')
  })

  it('prints more decimals for a miss that two would round up onto the target', () => {
    expect(ratioText(0.5999269343080815, 0.6)).toBe('0.5999')
    expect(ratioText(0.5951, 0.6)).toBe('0.595')
    expect(ratioText(0.59999999, 0.6)).not.toMatch(/^0\.60*$/)
  })
})
