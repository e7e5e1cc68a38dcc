/** The current time as a Date, from Effect's Clock (so that TestClock controls every timestamp Mailroom writes). */
import { Clock, Effect } from "effect"

export const currentDate: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
