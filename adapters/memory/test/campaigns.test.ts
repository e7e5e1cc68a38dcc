import { campaignsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

campaignsSuite("memory", MemoryStore.layer)
