/** How a transaction of each CommitDurability begins on Postgres. */
import type { Durability } from "@mailroom/core"

/** The statements that begin a transaction of `durability`: a relaxed one commits without waiting for its WAL to reach
 *  the disk (synchronous_commit off for that transaction alone). */
export const beginStatements = (durability: Durability): ReadonlyArray<string> =>
  durability === "relaxed" ? ["BEGIN", "SET LOCAL synchronous_commit TO OFF"] : ["BEGIN"]

/** The connection option of a pool whose statements outside a transaction commit relaxed: synchronous_commit off for
 *  the session. A statement that commits on its own (autocommit) otherwise waits for its WAL to reach the disk, several
 *  milliseconds on an ordinary disk, where background work (CommitDurability "relaxed") needs no wait. */
export const relaxedSessionOptions = "-c synchronous_commit=off"

/** The text that begins a transaction of `durability` in one simple query (beginStatements, set in the same round
 *  trip as BEGIN). */
export const beginTransaction = (durability: Durability): string => beginStatements(durability).join("; ")
