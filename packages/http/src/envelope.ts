/** The success envelopes of the spec. Contact, tag, bulk, subscription, suppression and topic routes answer
 *  { success: true, data } (list reads add meta); list and sending routes page with { data, pagination }. */
import { pageMeta, pagination, type PageRequest } from "@mailroom/core"

export const ok = <A>(data: A) => ({ success: true as const, data })

/** { success: true, data, meta: { page, limit, total_count, has_more } } */
export const pageEnvelope = <A>(data: ReadonlyArray<A>, request: PageRequest, total: number) =>
  ({ success: true as const, data, meta: pageMeta(request, total) })

/** { data, pagination: { page, limit, total, totalPages } } */
export const paginatedEnvelope = <A>(data: ReadonlyArray<A>, request: PageRequest, total: number) =>
  ({ data, pagination: pagination(request, total) })
