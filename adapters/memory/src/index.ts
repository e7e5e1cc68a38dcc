// The public surface of @mailroom/memory, listed by name.
export { MemoryStore, makeMemoryStore } from "./store.js"
export { MemoryJobQueue, makeMemoryJobQueue } from "./job-queue.js"
export type { MemoryJobQueueOptions, MemoryJobView } from "./job-queue.js"
