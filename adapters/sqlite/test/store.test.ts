import { storeSuite } from "@mailroom/testing"
import { Layer } from "effect"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

// Spans off, as Mailroom runs by default.
storeSuite("sqlite", Layer.merge(MailroomSqlite.layer({ filename: tempDbFile() }), Layer.setTracerEnabled(false)))
