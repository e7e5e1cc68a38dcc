/** Image assets in memory: records by account, one per image hash, and their bytes by hash, set once. */
import type { Asset, AssetId, AssetRepository, StoredAssetContent } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copy = <A>(value: A): A => structuredClone(value)

export const makeAssetRepository = (db: MemoryDb): AssetRepository => {
  const assets = db.table<AssetId, Asset>()
  const contents = db.table<string, StoredAssetContent>()
  const find = (accountId: string, id: string) => {
    const row = assets.get(id as AssetId)
    return row?.accountId === accountId ? row : undefined
  }
  return {
    insert: (asset) => db.atomic(() => {
      const same = [...assets.values()].find((other) => other.accountId === asset.accountId && other.hash === asset.hash)
      if (same !== undefined) {
        const shown = { ...same, deletedAt: null }
        assets.set(same.id, shown)
        return copy(shown)
      }
      assets.set(asset.id, copy(asset))
      return copy(asset)
    }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), copy)),
    list: (accountId, query) => db.atomic(() =>
      [...assets.values()]
        .filter((asset) => asset.accountId === accountId && asset.deletedAt === null &&
          (query.applicationKey === undefined || asset.applicationKey === query.applicationKey) &&
          (query.before === undefined || asset.id < query.before))
        .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .slice(0, query.limit)
        .map(copy)),
    markDeleted: (accountId, id, at) => db.atomic(() => {
      const asset = find(accountId, id)
      if (asset === undefined || asset.deletedAt !== null) return false
      assets.set(asset.id, { ...asset, deletedAt: at })
      return true
    }),
    putContent: (hash, content) => db.atomic(() => {
      if (!contents.has(hash)) contents.set(hash, copy(content))
    }),
    getContent: (hash) => db.atomic(() => Option.map(Option.fromNullable(contents.get(hash)), copy)),
  }
}
