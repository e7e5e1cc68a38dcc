import { sendingAcceptSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

sendingAcceptSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
