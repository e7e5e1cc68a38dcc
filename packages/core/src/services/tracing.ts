/** The tracing switch of the services: whether each service method records its span (`Contacts.create`). */
import { Context, Effect } from "effect"

/** Whether service methods record spans. On by default for Effect code that builds the layers itself; the
 *  `@mailroom/mailroom` facade sets it from its `tracing` option, which is off unless the host exports traces. */
export class Tracing extends Context.Reference<Tracing>()("@mailroom/core/Tracing", {
  defaultValue: () => true,
}) {}

/** How a service declares a method: `Effect.fn(name)` with tracing on, `Effect.fnUntraced` with it off. A span costs
 *  about 10 µs per call (it captures a stack trace at each call), which every request pays on its hot path
 *  (authentication, contact create) while nobody reads the span unless the host exports traces. */
export const serviceMethod = Effect.map(Tracing, (tracing) => (name: string): typeof Effect.fnUntraced =>
  tracing ? Effect.fn(name) : Effect.fnUntraced)
