import { analyticsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

analyticsSuite("memory", MemoryStore.layer)
