import { importSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

importSuite("memory", MemoryStore.layer)
