/** Application credentials in memory, keyed by the hash they are looked up with. */
import type { AppCredential, AppCredentialRepository } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyCredential = (credential: AppCredential): AppCredential => ({
  ...credential,
  allowedSenders: [...credential.allowedSenders],
  createdAt: new Date(credential.createdAt.getTime()),
})

export const makeAppCredentialRepository = (db: MemoryDb): AppCredentialRepository => {
  const byHash = db.table<string, AppCredential>()
  return {
    insert: (credential) => db.atomic(() => byHash.set(credential.hash, copyCredential(credential))),
    findByHash: (hash) => db.atomic(() => Option.fromNullable(byHash.get(hash)).pipe(Option.map(copyCredential))),
    ofApplication: (accountId, applicationKey) => db.atomic(() =>
      [...byHash.values()]
        .filter((c) => c.accountId === accountId && c.applicationKey === applicationKey)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map(copyCredential)),
  }
}
