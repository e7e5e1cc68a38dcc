import { brandsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

brandsSuite("memory", MemoryStore.layer)
