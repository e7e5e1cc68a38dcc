import { sendingAcceptSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

sendingAcceptSuite("memory", MemoryStore.layer)
