import { subscriptionsSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

subscriptionsSuite("memory", MemoryStore.layer)
