import { confirmationTemplateSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

confirmationTemplateSuite("memory", MemoryStore.layer)
