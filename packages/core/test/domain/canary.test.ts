import { describe, expect, it } from "vitest"
import { authenticationProblem, isCanaryStale } from "../../src/domain/canary.js"

describe("authenticationProblem: which results fail a canary run (docs/canary.md)", () => {
  it.each([
    [{ spf: "pass", dkim: "pass", dmarc: "pass" }, null],
    [{ spf: "none", dkim: "none", dmarc: "none" }, null],
    [{ spf: "softfail", dkim: "neutral", dmarc: "temperror" }, null],
    [{ spf: "fail", dkim: "pass", dmarc: "pass" }, "the received message failed SPF (fail)"],
    [{ spf: "pass", dkim: "permerror", dmarc: "fail" }, "the received message failed DKIM (permerror), DMARC (fail)"],
  ])("%j -> %s", (results, problem) => {
    expect(authenticationProblem(results)).toBe(problem)
  })
})

describe("isCanaryStale: no run finished within the interval and its grace", () => {
  const minute = 60_000
  const start = new Date(0)
  it.each([
    [null, 75 * minute, false],
    [null, 75 * minute + 1, true],
    [new Date(10 * minute), 85 * minute, false],
    [new Date(10 * minute), 85 * minute + 1, true],
  ] as const)("last run finished at %j, now %d ms -> %s", (last, now, stale) => {
    expect(isCanaryStale(last, start, new Date(now), 75 * minute)).toBe(stale)
  })
})
