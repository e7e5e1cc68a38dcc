import { storeSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

storeSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
