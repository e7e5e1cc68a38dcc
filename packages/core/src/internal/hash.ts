/** SHA-256 of a credential, as stored. Keys are long random strings, so a plain digest is enough to keep them unusable. */
import { createHash } from "node:crypto"

export const hashCredential = (secret: string): string => createHash("sha256").update(secret).digest("hex")

/** What listings show of a credential: its prefix and the first four characters of the random part. */
export const displayPrefix = (secret: string, prefix: string): string => `${secret.slice(0, prefix.length + 4)}…`
