import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { quotaPeriod, quotaResetsAt } from "../../src/index.js"

describe("the monthly quota period", () => {
  it("is the calendar month in UTC, whatever the local time zone says", () => {
    expect(quotaPeriod(new Date("2026-03-31T23:59:59.999Z"))).toBe("2026-03")
    expect(quotaPeriod(new Date("2026-04-01T00:00:00.000Z"))).toBe("2026-04")
    expect(quotaPeriod(new Date("2026-03-31T23:30:00-02:00"))).toBe("2026-04")
  })

  it("resets on the 1st of the next month at 00:00 UTC, across a year's end", () => {
    expect(quotaResetsAt(new Date("2026-03-15T12:00:00Z")).toISOString()).toBe("2026-04-01T00:00:00.000Z")
    expect(quotaResetsAt(new Date("2026-12-31T23:59:59Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z")
  })

  it("resets at the first instant whose period differs", () => {
    fc.assert(fc.property(fc.date({ min: new Date("2000-01-01Z"), max: new Date("2099-12-01Z"), noInvalidDate: true }), (at) => {
      const reset = quotaResetsAt(at)
      expect(quotaPeriod(new Date(reset.getTime() - 1))).toBe(quotaPeriod(at))
      expect(quotaPeriod(reset)).not.toBe(quotaPeriod(at))
    }))
  })
})
