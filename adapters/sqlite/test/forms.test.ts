import { formsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

formsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
