/** A transaction's first statement sent with the statements that begin it (BEGIN, and SET LOCAL for a relaxed one), in
 *  one write and one round trip, where BEGIN alone would take a round trip of its own.
 *
 *  node-postgres sends a query only once the one before it has answered (ReadyForQuery), so BEGIN and the statement
 *  after it cannot simply be queued together. The query here carries both:
 *  - a statement with parameters goes by the extended protocol, the beginning statements first, each parsed, bound
 *    and executed without a Sync of its own, then the statement as node-postgres sends it (its Sync last): Postgres
 *    runs them in order, and the one ReadyForQuery comes after the statement;
 *  - a statement without parameters goes as one simple query, the beginning statements in front of its text.
 *
 *  The beginning statements answer a CommandComplete each, before the statement's messages: the query leaves those
 *  out, so that it answers the statement's rows alone. An error in any of them skips the rest (Postgres discards the
 *  messages up to the Sync, and a simple query stops at the failed statement) and the query fails with it; BEGIN,
 *  which cannot fail on a working connection, has then run, and the transaction is rolled back as after any failed
 *  statement. */
import pg from "pg"

/** The parts of node-postgres's Query (pg/lib/query.js) that this query builds on: not in its published types. */
interface QueryInternals {
  submit(connection: PgConnection): Error | null
  prepare(connection: PgConnection): void
  handleCommandComplete(message: unknown, connection: PgConnection): void
  handleError(error: Error, connection: PgConnection): void
}

/** The parts of node-postgres's Connection (pg/lib/connection.js) that the beginning statements are written with. */
interface PgConnection {
  parse(config: { readonly text: string }): void
  bind(config: Record<string, never>): void
  execute(config: Record<string, never>): void
  readonly submittedNamedStatements: Record<string, string | undefined>
}

type Callback = (error: Error | null, result: pg.QueryResult<Record<string, unknown>>) => void

const QueryBase = pg.Query as unknown as new (config: pg.QueryConfig, values: undefined, callback: Callback) => QueryInternals

class BeginningQuery extends QueryBase {
  /** CommandCompletes of the beginning statements still to come (and leave out). */
  private left: number
  private statementName: string | undefined
  private submitting = false

  constructor(private readonly beginning: ReadonlyArray<string>, config: pg.QueryConfig, callback: Callback) {
    const simple = (config.values?.length ?? 0) === 0 && config.name === undefined
    super(simple ? { ...config, text: [...beginning, config.text].join("; ") } : config, undefined, callback)
    this.left = beginning.length
    this.statementName = config.name
  }

  /** The statement's name, as node-postgres reads it: while it sends the query, and once the beginning statements
   *  have answered. node-postgres marks the running query's name as prepared on the connection when a ParseComplete
   *  arrives, and the beginning statements' own ParseCompletes come first: were the name seen then, a statement whose
   *  own Parse then failed would be taken as prepared. */
  get name(): string | undefined {
    return this.submitting || this.left === 0 ? this.statementName : undefined
  }
  set name(name: string | undefined) {
    this.statementName = name
  }

  override submit(connection: PgConnection) {
    this.submitting = true
    try {
      return super.submit(connection)
    } finally {
      this.submitting = false
    }
  }

  /** Extended protocol only (a statement with parameters): each beginning statement, unnamed, before the statement. */
  override prepare(connection: PgConnection) {
    for (const text of this.beginning) {
      connection.parse({ text })
      connection.bind({})
      connection.execute({})
    }
    super.prepare(connection)
  }

  /** node-postgres forgets a statement it sent for parsing when the query fails, by its name: one of the beginning
   *  statements failing (the name not shown yet) is forgotten here. */
  override handleError(error: Error, connection: PgConnection) {
    if (this.left > 0 && this.statementName !== undefined) delete connection.submittedNamedStatements[this.statementName]
    super.handleError(error, connection)
  }

  override handleCommandComplete(message: unknown, connection: PgConnection) {
    if (this.left > 0) {
      this.left -= 1
      return
    }
    super.handleCommandComplete(message, connection)
  }
}

/** Runs `config` on `client` after `beginning` (the statements that begin its transaction), in one round trip; calls
 *  `callback` as `client.query(config, callback)` would. */
export const queryBeginningWith = (client: pg.ClientBase, beginning: ReadonlyArray<string>, config: pg.QueryConfig, callback: Callback) => {
  client.query(new BeginningQuery(beginning, config, callback) as unknown as pg.Submittable)
}
