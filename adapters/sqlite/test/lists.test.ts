import { listSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

listSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
