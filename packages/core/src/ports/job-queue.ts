/** The JobQueue port: durable background work (webhook delivery, message delivery, scheduled sends, purges).
 *  Engines: in-process for memory, a jobs table for SQLite, pg-boss for Postgres. */
import { Context, type Effect, type Scope } from "effect"
import type { StoreError } from "../errors.js"

export interface JobRequest {
  /** The queue, such as "webhook.deliver". */
  readonly name: string
  readonly payload: unknown
  /** Earliest time to run; now when omitted. */
  readonly runAt?: Date
  /** A second job with the same name and dedupe key is dropped while the first is pending. */
  readonly dedupeKey?: string
}

export interface JobQueueService {
  /** Enqueues a job; inside Store.transaction it commits with the surrounding writes where the engine allows. */
  readonly enqueue: (job: JobRequest) => Effect.Effect<void, StoreError>
  /** Runs `handler` for each job of `name` until the scope closes. A failing handler leaves the job for retry. */
  readonly work: <E>(
    name: string,
    handler: (payload: unknown) => Effect.Effect<void, E>,
  ) => Effect.Effect<void, StoreError, Scope.Scope>
}

export class JobQueue extends Context.Tag("@mailroom/core/JobQueue")<JobQueue, JobQueueService>() {}
