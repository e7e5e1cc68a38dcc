import { analyticsSuite, findTestPostgres, scratchPostgres } from "@mailroom/testing"
import { afterAll, describe } from "vitest"
import { MailroomPostgres } from "../src/index.js"

const url = await findTestPostgres()
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(async () => { await scratch?.drop() })

describe.skipIf(scratch === undefined)("postgres", () => {
  analyticsSuite("postgres", MailroomPostgres.layer({ url: scratch!.url }))
})
