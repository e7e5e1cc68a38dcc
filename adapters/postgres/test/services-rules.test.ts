import { clockSuite, limitsSuite, findTestPostgres } from "@mailroom/testing"
import { describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()

describe.skipIf(url === undefined)("postgres", () => {
  clockSuite("postgres", MailroomPostgres.layer({ url: url! }))
  limitsSuite("postgres", MailroomPostgres.layer({ url: url! }))
})
