/** How a transaction of each CommitDurability begins on Postgres. */
import type { Durability } from "@mailroom/core"

/** The text that begins a transaction of `durability`: a relaxed one commits without waiting for its WAL to reach the
 *  disk (synchronous_commit off for that transaction alone), set in the same round trip as BEGIN. */
export const beginTransaction = (durability: Durability): string =>
  durability === "relaxed" ? "BEGIN; SET LOCAL synchronous_commit TO OFF" : "BEGIN"
