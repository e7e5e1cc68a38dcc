/** Brands in memory. At most one brand of an account is its default; setDefault moves the mark in one atomic step. */
import { type BrandRecord, type BrandRepository, type TrackingDomain, compareBrands, type DesignRepository, matchesBrandQuery } from "@mailroom/core"
import { Effect, Option } from "effect"
import type { MemoryDb } from "./db.js"

const copy = <A>(value: A): A => structuredClone(value)

export const makeBrandRepository = (db: MemoryDb, designs: DesignRepository): BrandRepository => {
  const brands = db.table<string, BrandRecord>()
  // Tracking domains by brand id; a brand's row goes with the brand.
  const trackingDomains = db.table<string, TrackingDomain>()
  const trackingDomainOf = (accountId: string, brandId: string) => {
    const row = trackingDomains.get(brandId)
    return row?.accountId === accountId ? row : undefined
  }
  const find = (accountId: string, id: string) => {
    const row = brands.get(id)
    return row?.accountId === accountId ? row : undefined
  }
  const ofAccount = (accountId: string) => [...brands.values()].filter((brand) => brand.accountId === accountId)

  return {
    insert: (brand) => db.atomic(() => { brands.set(brand.id, copy(brand)) }),
    update: (brand, expectedUpdatedAt) => db.atomic(() => {
      const current = find(brand.accountId, brand.id)
      if (current === undefined || current.updatedAt.getTime() !== expectedUpdatedAt.getTime()) return false
      brands.set(brand.id, copy({
        ...brand, applicationKey: current.applicationKey, isDefault: current.isDefault, createdAt: current.createdAt,
      }))
      return true
    }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), copy)),
    findDefault: (accountId) => db.atomic(() =>
      Option.map(Option.fromNullable(ofAccount(accountId).find((brand) => brand.isDefault)), copy)),
    list: (accountId, query) => db.atomic(() =>
      ofAccount(accountId).filter((brand) => matchesBrandQuery(brand, query)).sort(compareBrands).slice(0, query.limit).map(copy)),
    count: (accountId) => db.atomic(() => ofAccount(accountId).length),
    setDefault: (accountId, id) => db.atomic(() => {
      if (find(accountId, id) === undefined) return false
      for (const brand of ofAccount(accountId)) brands.set(brand.id, { ...brand, isDefault: brand.id === id })
      return true
    }),
    delete: (accountId, id) => db.atomic(() => {
      if (find(accountId, id) === undefined) return false
      trackingDomains.delete(id)
      return brands.delete(id)
    }),
    findTrackingDomain: (accountId, brandId) => db.atomic(() => Option.map(Option.fromNullable(trackingDomainOf(accountId, brandId)), copy)),
    findTrackingDomainByHostname: (hostname) => db.atomic(() =>
      Option.map(Option.fromNullable([...trackingDomains.values()].find((domain) => domain.hostname === hostname)), copy)),
    saveTrackingDomain: (domain) => db.atomic(() => {
      const taken = [...trackingDomains.values()].some((row) => row.hostname === domain.hostname && row.brandId !== domain.brandId)
      if (taken) return false
      trackingDomains.set(domain.brandId, copy(domain))
      return true
    }),
    deleteTrackingDomain: (accountId, brandId) => db.atomic(() => trackingDomainOf(accountId, brandId) !== undefined && trackingDomains.delete(brandId)),
    usage: (accountId, id) => Effect.map(designs.list(accountId, { limit: Number.MAX_SAFE_INTEGER }), (all) =>
      all.filter((design) => design.brandId === id)),
  }
}
