import { brandsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

brandsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
