/** Running statements straight on the driver. @effect/sql wraps every statement in a span, a scope and a connection
 *  acquisition (on Postgres a pool checkout inside the scope). On SQLite switching this path off cost nothing
 *  measurable, and it went; on Postgres it stays, for what it saves on a request of a few statements in a transaction
 *  (see docs/performance.md, "Side paths").
 *
 *  `withDirectStatements` gives the adapter's SqlClient statements that skip that wrapping whenever spans are off and no
 *  statement transformer is set: inside a transaction they run on the transaction's connection, outside one through
 *  the adapter's `DirectRun`. With tracing on, or under `Statement.withTransformer` (tests that record statements),
 *  a statement takes @effect/sql's usual path, so it records its span and meets the transformer. The SQL text, its
 *  parameters, the connection it runs on and the rows it answers are the same on both paths.
 */
import { SqlClient, type SqlError, Statement } from "@effect/sql"
import { CommitDurability, type Durability } from "@mailroom/core"
import { Context, Effect, Effectable, FiberRef, identity, Option } from "effect"

/** How the adapter runs one compiled statement outside a transaction, as its client's own connection would: the rows,
 *  or undefined when it cannot run it right now, in which case the statement takes @effect/sql's usual path. */
export type DirectRun = (
  sql: string,
  params: ReadonlyArray<unknown>,
  durability: Durability,
) => Effect.Effect<ReadonlyArray<object>, SqlError.SqlError> | undefined

/** A statement of a client made by `withDirectStatements`: @effect/sql's own statement, with a cheaper way to run. */
class DirectStatement<A extends object> extends Effectable.Class<ReadonlyArray<A>, SqlError.SqlError>
  implements Statement.Statement<A> {
  constructor(readonly statement: Statement.Statement<A>, readonly run: DirectRun) {
    super()
  }

  get [Statement.FragmentId]() {
    return identity as (_: never) => Statement.FragmentId
  }
  get segments() {
    return this.statement.segments
  }
  get raw() {
    return this.statement.raw
  }
  get withoutTransform() {
    return this.statement.withoutTransform
  }
  get stream() {
    return this.statement.stream
  }
  get values() {
    return this.statement.values
  }
  get unprepared() {
    return this.statement.unprepared
  }
  compile(withoutTransform?: boolean) {
    return this.statement.compile(withoutTransform)
  }
  toJSON() {
    return (this.statement as unknown as { toJSON(): unknown }).toJSON()
  }

  commit(): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> {
    return Effect.withFiberRuntime((fiber) => {
      if (fiber.getFiberRef(FiberRef.currentTracerEnabled) || Option.isSome(fiber.getFiberRef(Statement.currentTransformer))) {
        return this.statement
      }
      const [sql, params] = this.statement.compile()
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      if (Option.isSome(transaction)) {
        return transaction.value[0].execute(sql, params, undefined) as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
      }
      return (this.run(sql, params, Context.get(fiber.currentContext, CommitDurability)) ?? this.statement) as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
    })
  }
}

/** `client`, whose statements (tagged templates and `unsafe`) run without @effect/sql's per-statement wrapping when
 *  spans are off: see the top of this module. Everything else (transactions, helpers, identifiers, the dialect's own
 *  additions such as `json`) is the client's own. `client` must not transform names: its rows are answered as the
 *  driver gives them on both paths. */
export const withDirectStatements = <C extends SqlClient.SqlClient>(client: C, run: DirectRun): C => {
  const direct = <A extends object>(statement: Statement.Statement<A>) => new DirectStatement(statement, run)
  const call = client as unknown as (strings: unknown, ...args: Array<unknown>) => unknown
  const sql = Object.assign(
    function sql(strings: unknown, ...args: Array<unknown>) {
      const made = call(strings, ...args)
      // A string names an identifier (`sql("table")`); only a template makes a statement.
      return typeof strings === "string" ? made : direct(made as Statement.Statement<object>)
    },
    client,
    {
      unsafe: <A extends object>(text: string, params?: ReadonlyArray<unknown>) =>
        direct(client.unsafe<A>(text, params)),
    },
  )
  return Object.assign(sql, { safe: sql })
}
