import { designsSuite, gallerySuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

designsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
gallerySuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
