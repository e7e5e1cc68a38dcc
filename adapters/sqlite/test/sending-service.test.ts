import { sendingSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

sendingSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
