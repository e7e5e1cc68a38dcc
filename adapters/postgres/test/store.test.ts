import { findTestPostgres, storeSuite } from "@mailroom/testing"
import { Layer } from "effect"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  // Spans off, as Mailroom runs by default: statements take the direct path (withDirectStatements).
  storeSuite("postgres", Layer.merge(MailroomPostgres.layer({ url: url! }), Layer.setTracerEnabled(false)))
})
