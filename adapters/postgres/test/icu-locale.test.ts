// The store and list suites on a database whose default collation is a Turkish ICU locale, where lower('I') is 'ı'
// and 'i' sorts apart from 'I': search, sort and segment conditions must answer exactly as on every other backend.
import { findTestPostgres, listSuite, storeSuite } from "@mailroom/testing"
import { Effect, Layer } from "effect"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"

const url = await findTestPostgres()

const onTurkishDatabase = Layer.unwrapScoped(Effect.map(
  scratchDatabase(url!, { icuLocale: "tr-TR" }),
  (database) => MailroomPostgres.layer({ url: database }),
))

describe.skipIf(url === undefined)("postgres with a tr-TR ICU collation", () => {
  storeSuite("postgres tr-TR", onTurkishDatabase)
  listSuite("postgres tr-TR", onTurkishDatabase)
})
