import { subscriptionsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

subscriptionsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
