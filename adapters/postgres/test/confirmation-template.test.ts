import { confirmationTemplateSuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  confirmationTemplateSuite("postgres", MailroomPostgres.layer({ url: url! }))
})
