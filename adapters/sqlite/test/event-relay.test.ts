import { eventRelaySuite, passedCursorSuite } from "@mailroom/testing"
import { Effect } from "effect"
import { describe } from "vitest"
import { MailroomSqlite } from "../src/index.js"
import { tempDbFile } from "./temp-files.js"

eventRelaySuite("sqlite", MailroomSqlite.layer({ filename: tempDbFile() }))

describe("sqlite", () => {
  passedCursorSuite("sqlite", Effect.sync(() => {
    const filename = tempDbFile()
    return () => MailroomSqlite.layer({ filename })
  }))
})
