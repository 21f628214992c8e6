/**
 * A ratio as a target's row prints it: two decimals, or as many more as it
 * takes for the printed figure to fall on the same side of the target as
 * the ratio itself. A median of 0.59993 is a miss, and "0.60×, no" read as
 * a contradiction; it prints as 0.5999.
 */
export function ratioText(ratio, target) {
  for (let digits = 2; digits <= 6; digits++) {
    const text = ratio.toFixed(digits)
    if ((Number(text) >= target) === (ratio >= target)) return text
  }
  return String(ratio)
}
