import { listSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

listSuite("memory", MemoryStore.layer)
