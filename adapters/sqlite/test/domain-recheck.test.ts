import { domainRecheckSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

domainRecheckSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
