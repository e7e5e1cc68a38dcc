import { contactsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

contactsSuite("memory", MemoryStore.layer)
