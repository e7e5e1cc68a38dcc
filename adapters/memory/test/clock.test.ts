import { clockSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

clockSuite("memory", MemoryStore.layer)
