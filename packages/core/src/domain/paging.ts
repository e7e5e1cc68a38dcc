/** The two paging shapes of the spec and the pure helpers that compute them. */
import { Schema } from "effect"

export interface PageRequest {
  readonly page: number
  readonly limit: number
}

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.limit

/** `meta` of the standard envelope: { page, limit, total_count, has_more }. */
export const pageMeta = (request: PageRequest, total: number) => ({
  page: request.page,
  limit: request.limit,
  total_count: total,
  has_more: offsetOf(request) + request.limit < total,
})

/** `pagination` of list routes: { page, limit, total, totalPages }. */
export const pagination = (request: PageRequest, total: number) => ({
  page: request.page,
  limit: request.limit,
  total,
  totalPages: Math.ceil(total / request.limit),
})

/** The items of one page of an already ordered array (the memory backend's paging). */
export const slicePage = <A>(items: ReadonlyArray<A>, request: PageRequest): ReadonlyArray<A> =>
  items.slice(offsetOf(request), offsetOf(request) + request.limit)

/** A page number or limit as it arrives in a query string. */
const IntegerString = (name: string) =>
  Schema.NumberFromString.pipe(Schema.int({ message: () => `${name} must be an integer` }))

export const PageParam = IntegerString("page").pipe(Schema.greaterThanOrEqualTo(1, { message: () => "page must be 1 or more" }))
export const limitParam = (max: number) =>
  IntegerString("limit").pipe(Schema.between(1, max, { message: () => `limit must be between 1 and ${max}` }))
