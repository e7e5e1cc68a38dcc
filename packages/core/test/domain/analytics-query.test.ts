import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { heatmapOf, offsetSpans } from "../../src/domain/analytics-query.js"

const hourMs = 3_600_000

/** The cell of a UTC hour in `timezone`, read from Intl for that hour alone: the reference the spans must match. */
const referenceFormats = new Map<string, Intl.DateTimeFormat>()
const cellByIntl = (timezone: string, hour: number) => {
  const format = referenceFormats.get(timezone) ?? new Intl.DateTimeFormat("en-US", {
    timeZone: timezone, weekday: "short", hour: "numeric", hourCycle: "h23",
  })
  referenceFormats.set(timezone, format)
  const parts = Object.fromEntries(format.formatToParts(new Date(hour)).map((p) => [p.type, p.value]))
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(parts["weekday"]!)
  return day * 24 + (Number(parts["hour"]) % 24)
}

// Zones with summer time either side of the equator, half-hour and 45-minute offsets, a half-hour summer shift
// (Lord Howe), and Ramadan's suspensions of summer time (Casablanca).
const zones = [
  "UTC", "Europe/Paris", "America/New_York", "America/Los_Angeles", "Australia/Sydney", "Australia/Lord_Howe",
  "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "America/Santiago", "Africa/Casablanca",
  "Asia/Tokyo",
]

describe("heatmap placement", () => {
  it("places every hour of a range in the cell Intl gives that hour, for zones with every kind of offset change", () => {
    fc.assert(fc.property(
      fc.constantFrom(...zones),
      fc.integer({ min: Date.UTC(2024, 0, 1) / hourMs, max: Date.UTC(2027, 0, 1) / hourMs }),
      fc.integer({ min: 1, max: 397 * 24 }),
      (timezone, startHour, hours) => {
        const from = startHour * hourMs
        const to = from + hours * hourMs
        const expected = Array.from({ length: 168 }, () => 0)
        const counts: Array<{ hour: number; count: number }> = []
        // One count per hour, its value the hour's index, so that a misplaced hour changes some cell's sum.
        for (let i = 0, hour = from; hour < to; i++, hour += hourMs) {
          counts.push({ hour, count: i + 1 })
          expected[cellByIntl(timezone, hour)]! += i + 1
        }
        const cells = heatmapOf(counts, timezone, { from: new Date(from), to: new Date(to) })
        expect(cells.map((c) => c.value)).toEqual(expected)
        expect(cells.map((c) => [c.day, c.hour])).toEqual(expected.map((_, i) => [Math.floor(i / 24), i % 24]))
      },
    ), { numRuns: 30 })
  })

  it("reads one span for a zone without changes and one more per change of offset", () => {
    const year = [Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)] as const
    expect(offsetSpans("Asia/Tokyo", ...year)).toEqual([[year[0], 9 * hourMs]])
    // Paris: summer time from 01:00 UTC on 29 March to 01:00 UTC on 25 October 2026.
    expect(offsetSpans("Europe/Paris", ...year)).toEqual([
      [year[0], hourMs], [Date.UTC(2026, 2, 29, 1), 2 * hourMs], [Date.UTC(2026, 9, 25, 1), hourMs],
    ])
  })
})
