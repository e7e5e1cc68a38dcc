import { importSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

importSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
