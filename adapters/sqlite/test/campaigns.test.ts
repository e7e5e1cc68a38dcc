import { campaignsSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

campaignsSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
