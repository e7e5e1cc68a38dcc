import { clockSuite, limitsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

clockSuite("memory", MemoryStore.layer)
limitsSuite("memory", MemoryStore.layer)
