import { templateSendersSuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  templateSendersSuite("postgres", MailroomPostgres.layer({ url: url! }))
})
