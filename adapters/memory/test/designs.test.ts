import { designsSuite, gallerySuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

designsSuite("memory", MemoryStore.layer)
gallerySuite("memory", MemoryStore.layer)
