/** The Store layer for the chosen database. Backends load on first use, so a host on memory or Postgres never loads
 *  SQLite's native module, and the reverse. */
import { type Store, StoreError } from "@mailroom/core"
import { Effect, Layer } from "effect"
import type { DatabaseChoice } from "./config.js"

const load = <M>(name: string, importer: () => Promise<M>) =>
  Effect.tryPromise({ try: importer, catch: (cause) => new StoreError({ operation: `load ${name}`, cause }) })

export const storeLayer = (
  choice: DatabaseChoice,
  options: { readonly sqliteSynchronous?: "FULL" | "NORMAL" | undefined },
): Layer.Layer<Store, StoreError> => {
  switch (choice.kind) {
    case "memory":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/memory", () => import("@mailroom/memory")), (m) => m.MemoryStore.layer))
    case "sqlite":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/sqlite", () => import("@mailroom/sqlite")), (m) =>
        m.MailroomSqlite.layer({
          filename: choice.filename,
          ...(options.sqliteSynchronous === undefined ? {} : { synchronous: options.sqliteSynchronous }),
        })))
    case "postgres":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/postgres", () => import("@mailroom/postgres")), (m) =>
        m.MailroomPostgres.layer({ url: choice.url })))
  }
}
