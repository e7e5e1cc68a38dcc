import { consentSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

consentSuite("memory", MemoryStore.layer)
