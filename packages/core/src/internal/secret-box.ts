/** Sealing secrets at rest (webhook secrets): AES-256-GCM under a key derived with HKDF-SHA256 from MAILROOM_SECRET
 *  and a purpose, so that each kind of secret has its own key. Sealed text: `v1.<base64url of iv | tag | ciphertext>`. */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"

export const deriveKey = (masterSecret: string, purpose: string): Buffer =>
  Buffer.from(hkdfSync("sha256", masterSecret, "mailroom", purpose, 32))

export const seal = (key: Buffer, plaintext: string): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`
}

/** The plaintext, or undefined when the text was not sealed with this key (another MAILROOM_SECRET, or tampered). */
export const unseal = (key: Buffer, sealed: string): string | undefined => {
  if (!sealed.startsWith("v1.")) return undefined
  const bytes = Buffer.from(sealed.slice(3), "base64url")
  if (bytes.length < 28) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}
