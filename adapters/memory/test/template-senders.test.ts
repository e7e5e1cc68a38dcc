import { templateSendersSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

templateSendersSuite("memory", MemoryStore.layer)
