/** The starter gallery: twelve starters in four groups, and what a draft adopted from one holds. Spec: "Design (Studio
 *  template)" (gallery groupings) and "Designs (template API)" (catalog, adopt, sync). */
import { compileBlocks } from "../domain/blocks.js"
import { authenticationStarters } from "./authentication.js"
import { billingStarters } from "./billing.js"
import { marketingStarters } from "./marketing.js"
import { notificationStarters } from "./notifications.js"
import type { Starter } from "./starter.js"

export { type Starter, type StarterCategory, starterCategories } from "./starter.js"

export const starters: ReadonlyArray<Starter> = [
  ...authenticationStarters, ...notificationStarters, ...billingStarters, ...marketingStarters,
]

export const findStarter = (key: string): Starter | undefined => starters.find((starter) => starter.key === key)

/** The sample data of a starter: each variable's example. */
export const starterSample = (starter: Starter): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Object.entries(starter.variables).flatMap(([name, spec]) => spec.example === undefined ? [] : [[name, spec.example]]))

/** The MJML source of a starter, compiled from its blocks. */
export const starterMjml = (starter: Starter): string =>
  compileBlocks(starter.blocks, { lang: starter.locale, title: starter.subject, preheader: starter.preheader })

