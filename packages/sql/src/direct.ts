/** Running a hot statement straight on the driver. @effect/sql wraps every statement in a span, a scope and a
 *  connection acquisition, which together cost a request on Postgres tens of µs beside the driver's own work. An
 *  adapter whose driver can run a compiled statement on its own (Postgres: the pool's `query`) provides
 *  DirectStatements; the store then sends its hot single statements (the contact insert) through it whenever they run
 *  outside a transaction and spans are off. Inside a transaction, or with tracing on, the statement takes @effect/sql's
 *  usual path, so it joins the transaction's connection and records its span. */
import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import { Context, Effect, FiberRef, Option } from "effect"

export interface DirectStatementsService {
  /** Runs `sql` with `params` on a pooled connection and answers the rows, failing with SqlError as @effect/sql
   *  would (the driver's error as its cause). */
  readonly run: (sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError>
}

export class DirectStatements extends Context.Tag("@mailroom/sql/DirectStatements")<
  DirectStatements,
  DirectStatementsService
>() {}

/** `statement`, sent through `direct` when it runs outside a transaction with spans off, else as @effect/sql runs it. */
export const runStatement = <A extends object>(
  direct: Option.Option<DirectStatementsService>,
  statement: Statement.Statement<A>,
): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> =>
  Option.isNone(direct)
    ? statement
    : Effect.withFiberRuntime((fiber) => {
      const inTransaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      if (Option.isSome(inTransaction) || fiber.getFiberRef(FiberRef.currentTracerEnabled)) return statement
      const [sql, params] = statement.compile()
      return direct.value.run(sql, params) as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
    })
