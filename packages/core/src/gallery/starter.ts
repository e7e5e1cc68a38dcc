/** The shape of a starter of the gallery (GET /designs/catalog): a block list with its subject, variables and sample
 *  data. Its MJML is compiled from the blocks (compileBlocks), so a starter adopted as MJML and one adopted as blocks
 *  render the same. `version` moves on whenever a starter's content changes; POST /designs/{id}/sync compares with it. */
import type { Block } from "../domain/blocks.js"
import type { VariableSpec } from "../domain/design.js"

export const starterCategories = ["authentication", "notifications", "billing", "marketing"] as const
export type StarterCategory = (typeof starterCategories)[number]

export interface Starter {
  /** The catalog key, such as verify-email. */
  readonly key: string
  readonly name: string
  readonly description: string
  readonly category: StarterCategory
  readonly version: number
  readonly locale: string
  readonly subject: string
  /** The preview line inboxes show after the subject. */
  readonly preheader: string
  readonly variables: { readonly [name: string]: VariableSpec }
  readonly blocks: ReadonlyArray<Block>
}

/** A required string variable with its sample value. */
export const required = (example: unknown, extra: Partial<VariableSpec> = {}): VariableSpec =>
  ({ type: "string", required: true, example, ...extra })
export const url = (example: string): VariableSpec => ({ type: "string", required: true, format: "url", example })
export const optional = (example: unknown, extra: Partial<VariableSpec> = {}): VariableSpec =>
  ({ type: "string", required: false, example, ...extra })
