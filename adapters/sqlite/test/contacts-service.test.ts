import { contactsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

contactsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
