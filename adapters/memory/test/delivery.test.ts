import { deliverySuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

deliverySuite("memory", MemoryStore.layer)
