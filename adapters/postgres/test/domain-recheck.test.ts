import { domainRecheckSuite, findTestPostgres, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()
// A database of its own: the re-check reads every account's domains, and other test files' domains are not its own.
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(async () => { await scratch?.drop() })

describe.skipIf(scratch === undefined)("postgres", () => {
  domainRecheckSuite("postgres", MailroomPostgres.layer({ url: scratch!.url }))
})
