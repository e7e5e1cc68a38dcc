import { templateSendSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

templateSendSuite("memory", MemoryStore.layer)
