import { IdsLive } from "@mailroom/core"
import { jobQueueSuite } from "@mailroom/testing"
import { Layer } from "effect"
import { MemoryJobQueue } from "../src/index.js"

jobQueueSuite("memory", MemoryJobQueue.layer({ shutdownGrace: "1 second" }).pipe(Layer.provide(IdsLive)))
