import { clockSuite, limitsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

clockSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
limitsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
