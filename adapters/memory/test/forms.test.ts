import { formsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

formsSuite("memory", MemoryStore.layer)
