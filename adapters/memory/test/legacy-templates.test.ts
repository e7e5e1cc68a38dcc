import { legacyTemplatesSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

legacyTemplatesSuite("memory", MemoryStore.layer)
