import { deliverySuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

deliverySuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
