import { designsSuite, gallerySuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  designsSuite("postgres", MailroomPostgres.layer({ url: url! }))
  gallerySuite("postgres", MailroomPostgres.layer({ url: url! }))
})
