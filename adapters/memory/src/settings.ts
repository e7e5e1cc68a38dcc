/** Process-wide settings in memory. They last as long as the layer, like everything in this backend. */
import type { SettingRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

export const makeSettingRepository = (db: MemoryDb): SettingRepository => {
  const settings = db.table<string, string>()
  return {
    getOrInsert: (key, value) =>
      db.atomic(() => {
        const stored = settings.get(key)
        if (stored !== undefined) return stored
        settings.set(key, value)
        return value
      }),
    get: (key) => db.atomic(() => Option.fromNullable(settings.get(key))),
    set: (key, value) => db.atomic(() => settings.set(key, value)),
  }
}
