import { legacyTemplatesSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

legacyTemplatesSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
