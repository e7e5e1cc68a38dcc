/** The domains table behind `Store.domains`. The records' states are one JSON column, read and written whole; the DKIM
 *  private key arrives sealed and is stored as it arrives. */
import type { SqlClient } from "@effect/sql"
import {
  AccountId, type Domain, DomainAlreadyExists, DomainId, type DomainRepository, DomainStatus, offsetOf, StoreError,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, IntegerColumn, JsonColumn, toJson, toMillis, toMillisOrNull } from "./internal/columns.js"
import { isUniqueViolation, orStoreError, storeError, type UniqueConstraint } from "./internal/errors.js"
import { booleanParam } from "./lists.js"

const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(IntegerColumn, Schema.Boolean, { strict: true, decode: (n) => n !== 0, encode: (b) => (b ? 1 : 0) }),
)

const RecordStateColumn = Schema.Struct({
  status: Schema.Literal("pending", "verified", "failed"),
  problem: Schema.NullOr(Schema.Struct({
    code: Schema.Literal("DNS_VERIFICATION_FAILED", "DNS_RECORD_MISSING"),
    message: Schema.String,
  })),
})

const DomainRow = Schema.Struct({
  id: DomainId,
  account_id: AccountId,
  hostname: Schema.String,
  status: DomainStatus,
  is_inbox_hosted: BooleanColumn,
  records: JsonColumn(Schema.Struct({
    verification: RecordStateColumn, spf: RecordStateColumn, dkim: RecordStateColumn, dmarc: RecordStateColumn,
  })),
  spf_value: Schema.String,
  dkim_selector: Schema.String,
  dkim_public_key: Schema.String,
  dkim_private_key_sealed: Schema.String,
  created_at: EpochMillis,
  verified_at: Schema.NullOr(EpochMillis),
  last_checked_at: Schema.NullOr(EpochMillis),
  failing_since: Schema.NullOr(EpochMillis),
})
type DomainRow = typeof DomainRow.Type
const decodeDomains = Schema.decodeUnknown(Schema.Array(DomainRow))
const decodeCounted = Schema.decodeUnknown(Schema.Array(Schema.extend(DomainRow, Schema.Struct({ total: IntegerColumn }))))
const decodeTotal = Schema.decodeUnknown(Schema.Array(Schema.Struct({ total: IntegerColumn })))

const fromRow = (row: DomainRow): Domain => ({
  id: row.id,
  accountId: row.account_id,
  hostname: row.hostname,
  status: row.status,
  isInboxHosted: row.is_inbox_hosted,
  records: row.records,
  spfValue: row.spf_value,
  dkim: { selector: row.dkim_selector, publicKey: row.dkim_public_key, sealedPrivateKey: row.dkim_private_key_sealed },
  createdAt: row.created_at,
  verifiedAt: row.verified_at,
  lastCheckedAt: row.last_checked_at,
  failingSince: row.failing_since,
})

/** The columns a verification changes. */
const checkedColumns = (domain: Domain) => ({
  status: domain.status,
  records: toJson(domain.records),
  spf_value: domain.spfValue,
  verified_at: toMillisOrNull(domain.verifiedAt),
  last_checked_at: toMillisOrNull(domain.lastCheckedAt),
  failing_since: toMillisOrNull(domain.failingSince),
})

const accountHostnameKey: UniqueConstraint = { name: "domains_account_hostname_key", table: "domains", columns: ["account_id", "hostname"] }

const first = (rows: ReadonlyArray<DomainRow>) => Option.map(Option.fromNullable(rows[0]), fromRow)

export const makeDomainRepository = (sql: SqlClient.SqlClient): DomainRepository => ({
  insert: (domain) =>
    sql`INSERT INTO domains ${sql.insert({
      id: domain.id,
      account_id: domain.accountId,
      hostname: domain.hostname,
      is_inbox_hosted: booleanParam(sql, domain.isInboxHosted),
      dkim_selector: domain.dkim.selector,
      dkim_public_key: domain.dkim.publicKey,
      dkim_private_key_sealed: domain.dkim.sealedPrivateKey,
      created_at: toMillis(domain.createdAt),
      ...checkedColumns(domain),
    })}`.pipe(
      Effect.asVoid,
      Effect.mapError((error): DomainAlreadyExists | StoreError => isUniqueViolation(error, accountHostnameKey)
        ? new DomainAlreadyExists({ hostname: domain.hostname })
        : storeError("domains.insert")(error)),
    ),

  update: (domain) =>
    sql`UPDATE domains SET ${sql.update(checkedColumns(domain))}
      WHERE account_id = ${domain.accountId} AND id = ${domain.id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("domains.update"),
    ),

  findById: (accountId, id) =>
    sql`SELECT * FROM domains WHERE account_id = ${accountId} AND id = ${id}`.pipe(
      Effect.flatMap(decodeDomains), Effect.map(first), orStoreError("domains.findById"),
    ),

  findByHostname: (accountId, hostname) =>
    sql`SELECT * FROM domains WHERE account_id = ${accountId} AND hostname = ${hostname}`.pipe(
      Effect.flatMap(decodeDomains), Effect.map(first), orStoreError("domains.findByHostname"),
    ),

  list: (accountId, query) =>
    Effect.gen(function* () {
      const status = query.status === undefined ? sql`` : sql`AND status = ${query.status}`
      const rows = yield* sql`SELECT domains.*, COUNT(*) OVER () AS total FROM domains
        WHERE account_id = ${accountId} ${status}
        ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${offsetOf(query)}`.pipe(Effect.flatMap(decodeCounted))
      // A page past the end has no rows to carry the total.
      const total = rows[0]?.total ?? (yield* sql`SELECT COUNT(*) AS total FROM domains WHERE account_id = ${accountId} ${status}`.pipe(
        Effect.flatMap(decodeTotal),
      ))[0]?.total ?? 0
      return { domains: rows.map(fromRow), total }
    }).pipe(orStoreError("domains.list")),

  count: (accountId) =>
    sql`SELECT COUNT(*) AS total FROM domains WHERE account_id = ${accountId}`.pipe(
      Effect.flatMap(decodeTotal),
      Effect.map((rows) => rows[0]?.total ?? 0),
      orStoreError("domains.count"),
    ),

  delete: (accountId, id) =>
    sql`DELETE FROM domains WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0),
      orStoreError("domains.delete"),
    ),

  listForRecheck: (after, limit) =>
    sql`SELECT * FROM domains WHERE status IN ('pending', 'verified') ${after === undefined ? sql`` : sql`AND id > ${after}`}
      ORDER BY id LIMIT ${limit}`.pipe(
      Effect.flatMap(decodeDomains), Effect.map((rows) => rows.map(fromRow)), orStoreError("domains.listForRecheck"),
    ),
})
