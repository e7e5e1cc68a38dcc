import { designsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

designsSuite("memory", MemoryStore.layer)
