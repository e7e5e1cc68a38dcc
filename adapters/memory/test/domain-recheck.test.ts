import { domainRecheckSuite } from "@mailroom/testing"
import { MemoryStore } from "../src/index.js"

domainRecheckSuite("memory", MemoryStore.layer)
