import { IdsLive } from "@mailroom/core"
import { jobQueueSuite } from "@mailroom/testing"
import { Layer } from "effect"
import { MemoryJobQueue, MemoryStore } from "../src/index.js"

jobQueueSuite("memory", Layer.merge(MemoryJobQueue.layer({ shutdownGrace: "1 second" }), MemoryStore.layer).pipe(Layer.provide(IdsLive)))
