import { sendingSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

sendingSuite("memory", MemoryStore.layer)
