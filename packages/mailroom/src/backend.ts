/** The Store and JobQueue layers for the chosen database. Backends load on first use, so a host on memory or Postgres
 *  never loads SQLite's native module, and the reverse; Postgres is an optional peer (optional-peer.ts). Each backend
 *  brings its own job engine: in-process for memory, the jobs table for SQLite, pg-boss for Postgres. */
import { type Ids, type JobQueue, type Store, StoreError } from "@mailroom/core"
import { Duration, Effect, Layer } from "effect"
import type { DatabaseChoice } from "./config.js"
import { importOptionalPeer, MissingPeerError, postgresNeededFor, postgresPeer } from "./optional-peer.js"

const load = <M>(name: string, importer: () => Promise<M>) =>
  Effect.tryPromise({ try: importer, catch: (cause) => cause }).pipe(Effect.catchAll((cause) =>
    // A package to install is the host's to fix, not a storage failure: ready() rejects with it as it is.
    cause instanceof MissingPeerError ? Effect.die(cause) : Effect.fail(new StoreError({ operation: `load ${name}`, cause }))))

export interface BackendOptions {
  readonly sqliteSynchronous?: "FULL" | "NORMAL" | undefined
  /** How long closing waits for running jobs. */
  readonly shutdownGrace: Duration.Duration
}

export const backendLayer = (choice: DatabaseChoice, options: BackendOptions): Layer.Layer<Store | JobQueue, StoreError, Ids> => {
  const shutdownGrace = options.shutdownGrace
  switch (choice.kind) {
    case "memory":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/memory", () => import("@mailroom/memory")), (m) =>
        Layer.merge(m.MemoryStore.layer, m.MemoryJobQueue.layer({ shutdownGrace }))))
    case "sqlite":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/sqlite", () => import("@mailroom/sqlite")), (m) =>
        m.MailroomSqlite.jobQueue({ shutdownGrace }).pipe(Layer.provideMerge(m.MailroomSqlite.layer({
          filename: choice.filename,
          ...(options.sqliteSynchronous === undefined ? {} : { synchronous: options.sqliteSynchronous }),
        })))))
    case "postgres":
      return Layer.unwrapEffect(Effect.map(load("@mailroom/postgres", () => importOptionalPeer(postgresPeer, postgresNeededFor)), (m) =>
        m.MailroomPostgres.jobQueue({ url: choice.url, shutdownGrace }).pipe(Layer.provideMerge(m.MailroomPostgres.layer({ url: choice.url })))))
  }
}

export const defaultShutdownGrace = Duration.seconds(30)
