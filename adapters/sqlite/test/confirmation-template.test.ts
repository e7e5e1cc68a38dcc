import { confirmationTemplateSuite } from "@mailroom/testing"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

confirmationTemplateSuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))
