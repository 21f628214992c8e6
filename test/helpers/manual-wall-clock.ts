import type { WallClock } from '../../server/clock/wall-clock.js'

/** A wall clock that tests move by hand. */
export class ManualWallClock implements WallClock {
  constructor(private current: number) {}

  now(): number {
    return this.current
  }

  tick(ms: number): void {
    this.current += ms
  }
}
