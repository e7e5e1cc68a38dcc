import { MemoryStore } from "../src/index.js"
import { storeSuite } from "@mailroom/testing"

storeSuite("memory", MemoryStore.layer)
