/** Resuming at the event loop's next turn, after the I/O callbacks that are ready. */
import { Effect } from "effect"

/** Resumes at the event loop's next turn (after the I/O callbacks that are ready). */
export const nextTurn = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})
