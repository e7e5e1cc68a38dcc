/** Bulk validation jobs in memory, keyed by id, with their results kept as chunks beside them. */
import { type AddressVerdict, progressOf, type ValidationJob, type ValidationJobId, type ValidationJobRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

interface Row {
  readonly job: ValidationJob
  readonly chunks: Map<number, ReadonlyArray<AddressVerdict>>
}

const copy = (job: ValidationJob): ValidationJob => ({ ...job, emails: [...job.emails], error: job.error === null ? null : { ...job.error } })

export const makeValidationJobRepository = (db: MemoryDb): ValidationJobRepository => {
  const rows = db.table<ValidationJobId, Row>()
  const find = (accountId: string, id: string) => {
    const row = rows.get(id as ValidationJobId)
    return row?.job.accountId === accountId ? row : undefined
  }
  return {
    insert: (job) => db.atomic(() => { rows.set(job.id, { job: copy(job), chunks: new Map() }) }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), (row) => copy(row.job))),
    findProgress: (accountId, id) =>
      db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), (row) => progressOf(copy(row.job)))),
    results: (accountId, id) => db.atomic(() => {
      const row = find(accountId, id)
      if (row === undefined) return []
      return [...row.chunks.entries()].sort(([a], [b]) => a - b).flatMap(([, results]) => structuredClone(results))
    }),
    saveChunk: (accountId, id, index, results) => db.atomic(() => {
      const row = find(accountId, id)
      if (row === undefined || row.chunks.has(index)) return
      const chunks = new Map(row.chunks).set(index, structuredClone(results))
      rows.set(id, { job: { ...row.job, processed: row.job.processed + results.length }, chunks })
    }),
    setState: (job) => db.atomic(() => {
      const row = find(job.accountId, job.id)
      if (row === undefined) return false
      rows.set(job.id, {
        ...row,
        job: { ...row.job, status: job.status, startedAt: job.startedAt, completedAt: job.completedAt, error: job.error },
      })
      return true
    }),
  }
}
