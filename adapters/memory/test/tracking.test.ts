import { trackingSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

trackingSuite("memory", MemoryStore.layer)
