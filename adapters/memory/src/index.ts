// The public surface of @mailroom/memory, listed by name.
export { MemoryStore, makeMemoryStore } from "./store.js"
