import { deliverySuite, findTestPostgres, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()
// A database of its own: on the shared test database, other test processes' Mailrooms would relay these messages'
// email.queued events and deliver them before the suite's own runs.
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(async () => { await scratch?.drop() })

describe.skipIf(scratch === undefined)("postgres", () => {
  deliverySuite("postgres", MailroomPostgres.layer({ url: scratch!.url }))
})
