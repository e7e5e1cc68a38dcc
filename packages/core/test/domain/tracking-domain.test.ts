import { describe, expect, it } from "vitest"
import type { AccountId, BrandId, TrackingDomain } from "../../src/index.js"
import { checkCname, cnameTargetOf, putTrackingDomain, trackingOriginOf } from "../../src/domain/tracking-domain.js"

const at = new Date("2026-11-29T12:00:00Z")
const base: TrackingDomain = {
  brandId: "brd_1" as BrandId, accountId: "acc_1" as AccountId, hostname: "links.example.com", status: "pending",
  reason: null, createdAt: at, updatedAt: at, lastCheckedAt: null, verifiedAt: null,
}

describe("tracking domains (sending spec, Designs: tracking-domain rows)", () => {
  it("the CNAME target is the host of TRACK_URL", () => {
    expect(cnameTargetOf("https://Track.Mailroom.example:8443/base")).toBe("track.mailroom.example")
  })

  it("verifies a CNAME to the target whatever its case and trailing dot; otherwise fails saying what was found", () => {
    expect(checkCname("links.example.com", ["TRACK.mailroom.example."], "track.mailroom.example")).toEqual({ status: "verified", reason: null })
    expect(checkCname("links.example.com", [], "track.mailroom.example")).toEqual({
      status: "failed", reason: "no CNAME record at links.example.com; publish links.example.com CNAME track.mailroom.example",
    })
    expect(checkCname("links.example.com", ["other.example.net."], "track.mailroom.example")).toEqual({
      status: "failed",
      reason: "the CNAME record at links.example.com points to other.example.net, not track.mailroom.example; change it to track.mailroom.example",
    })
  })

  it("only a verified domain gives mail an origin", () => {
    expect(trackingOriginOf(undefined)).toBeUndefined()
    expect(trackingOriginOf(base)).toBeUndefined()
    expect(trackingOriginOf({ ...base, status: "failed", reason: "x" })).toBeUndefined()
    expect(trackingOriginOf({ ...base, status: "verified", verifiedAt: at })).toBe("https://links.example.com")
  })

  it("PUT of the same hostname keeps the domain; another hostname starts pending, keeping createdAt", () => {
    const verified = { ...base, status: "verified" as const, verifiedAt: at, lastCheckedAt: at }
    const later = new Date("2026-11-30T12:00:00Z")
    expect(putTrackingDomain(verified, { brandId: base.brandId, accountId: base.accountId, hostname: base.hostname, at: later })).toBe(verified)
    expect(putTrackingDomain(verified, { brandId: base.brandId, accountId: base.accountId, hostname: "go.example.com", at: later })).toEqual({
      ...base, hostname: "go.example.com", createdAt: at, updatedAt: later,
    })
    expect(putTrackingDomain(undefined, { brandId: base.brandId, accountId: base.accountId, hostname: "go.example.com", at: later })).toEqual({
      ...base, hostname: "go.example.com", createdAt: later, updatedAt: later,
    })
  })
})
