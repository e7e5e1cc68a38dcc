import { templateSendSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

templateSendSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
