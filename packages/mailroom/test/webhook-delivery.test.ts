import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MemoryStore } from "@mailroom/memory"
import { UndiciTransport } from "@mailroom/net"
import { MailroomPostgres } from "@mailroom/postgres"
import { MailroomSqlite } from "@mailroom/sqlite"
import { findTestPostgres, webhookDeliverySuite } from "@mailroom/testing"
import { describe } from "vitest"

webhookDeliverySuite("memory", MemoryStore.layer, UndiciTransport.layer())
webhookDeliverySuite("sqlite", MailroomSqlite.layer({ filename: join(mkdtempSync(join(tmpdir(), "mailroom-delivery-")), "db.sqlite") }), UndiciTransport.layer())
const url = await findTestPostgres()
describe.skipIf(url === undefined)("postgres", () => {
  webhookDeliverySuite("postgres", MailroomPostgres.layer({ url: url! }), UndiciTransport.layer())
})
