import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MemoryStore } from "@mailroom/memory"
import { UndiciTransport } from "@mailroom/net"
import { MailroomPostgres } from "@mailroom/postgres"
import { MailroomSqlite } from "@mailroom/sqlite"
import { findTestPostgres, scratchPostgres, webhookDeliverySuite } from "@mailroom/testing"
import { afterAll, describe } from "vitest"

webhookDeliverySuite("memory", MemoryStore.layer, UndiciTransport.layer())
webhookDeliverySuite("sqlite", MailroomSqlite.layer({ filename: join(mkdtempSync(join(tmpdir(), "mailroom-delivery-")), "db.sqlite") }), UndiciTransport.layer())
const url = await findTestPostgres()
// A database of its own: the suite hands events to the webhooks consumer through the relay, which sees every event of
// the outbox, and other test files append to the shared test database at the same time.
const scratch = url === undefined ? undefined : await scratchPostgres(url)
afterAll(() => scratch?.drop())
describe.skipIf(scratch === undefined)("postgres", () => {
  webhookDeliverySuite("postgres", MailroomPostgres.layer({ url: scratch!.url }), UndiciTransport.layer())
})
