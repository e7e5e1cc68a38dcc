import { findTestPostgres, storeSuite } from "@mailroom/testing"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  storeSuite("postgres", MailroomPostgres.layer({ url: url! }))
})
