import { trackingSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

trackingSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
