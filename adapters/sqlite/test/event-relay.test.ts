import { eventRelaySuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

eventRelaySuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
