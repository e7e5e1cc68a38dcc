import { templateSendersSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

templateSendersSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
