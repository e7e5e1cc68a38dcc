import { consentSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

consentSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
