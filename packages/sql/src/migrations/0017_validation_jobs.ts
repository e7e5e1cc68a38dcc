/** Bulk address validation: one row per job (its addresses as a JSON array, its options and progress) and its results
 *  a chunk at a time (a JSON array per chunk), so that a run stores each step in one write and a retried run resumes
 *  after the chunks already stored. */
import type { Migration } from "./migration.js"

export const validationJobs: Migration = {
  id: 17,
  name: "validation_jobs",
  sqlite: [
    `CREATE TABLE validation_jobs (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      status TEXT NOT NULL,
      emails TEXT NOT NULL,
      extended INTEGER NOT NULL,
      timeout_ms INTEGER NOT NULL,
      continue_on_error INTEGER NOT NULL,
      processed INTEGER NOT NULL,
      error TEXT,
      created_at BIGINT NOT NULL,
      started_at BIGINT,
      completed_at BIGINT
    )`,
    `CREATE TABLE validation_job_chunks (
      job_id TEXT NOT NULL REFERENCES validation_jobs (id) ON DELETE CASCADE,
      chunk_index INTEGER NOT NULL,
      results TEXT NOT NULL,
      PRIMARY KEY (job_id, chunk_index)
    )`,
  ],
  pg: [
    `CREATE TABLE validation_jobs (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      status TEXT NOT NULL,
      emails JSON NOT NULL,
      extended BOOLEAN NOT NULL,
      timeout_ms INTEGER NOT NULL,
      continue_on_error BOOLEAN NOT NULL,
      processed INTEGER NOT NULL,
      error JSON,
      created_at BIGINT NOT NULL,
      started_at BIGINT,
      completed_at BIGINT
    )`,
    `CREATE TABLE validation_job_chunks (
      job_id TEXT COLLATE "C" NOT NULL REFERENCES validation_jobs (id) ON DELETE CASCADE,
      chunk_index INTEGER NOT NULL,
      results JSON NOT NULL,
      PRIMARY KEY (job_id, chunk_index)
    )`,
  ],
}
