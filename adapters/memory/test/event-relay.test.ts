import { eventRelaySuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

eventRelaySuite("memory", MemoryStore.layer)
