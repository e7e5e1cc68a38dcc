import { analyticsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

analyticsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
