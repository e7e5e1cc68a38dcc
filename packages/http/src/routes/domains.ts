/** /v1/domains: custom sending domains and the DNS records they publish. Spec: sending "Domains". A domain read, added
 *  or verified answers { success, data } with every record's type, host, value and status (and the problem found by
 *  the last verify); the list answers { data, pagination } with each record's status (and the DKIM selector). */
import {
  CreateDomainInput, type DomainDetails, domainLimits, type DomainRecordName, domainRecordNames, Domains, DomainStatus,
  limitParam, PageParam,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, paginatedEnvelope } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"

/** GET /domains: page, limit 1-100 (default 25), status. */
export const DomainsParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(domainLimits.maxPageSize), { default: () => domainLimits.pageSize }),
  status: Schema.optional(DomainStatus),
})

const iso = (date: Date | null) => date === null ? null : date.toISOString()

const dnsRecords = ({ domain, dnsRecords: records }: DomainDetails, full: boolean) =>
  Object.fromEntries(domainRecordNames.map((name: DomainRecordName) => {
    const record = records[name]
    const selector = name === "dkim" ? { selector: domain.dkim.selector } : {}
    if (!full) return [name, { status: record.status, ...selector }]
    return [name, {
      status: record.status,
      type: record.type,
      host: record.host,
      value: record.value,
      ...selector,
      ...(record.problem === null ? {} : { error: { code: record.problem.code, message: record.problem.message } }),
    }]
  }))

/** A domain as the API shows it. Never its private key. */
export const domainBody = (details: DomainDetails, full = true) => ({
  id: details.domain.id,
  hostname: details.domain.hostname,
  status: details.domain.status,
  isInboxHosted: details.domain.isInboxHosted,
  dnsRecords: dnsRecords(details, full),
  createdAt: details.domain.createdAt.toISOString(),
  verifiedAt: iso(details.domain.verifiedAt),
  lastCheckedAt: iso(details.domain.lastCheckedAt),
})

const read = requireScope("domains:read")
const write = requireScope("domains:write")

export const domainRoutes = new Hono<MailroomEnv>()
  .get("/domains", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, DomainsParams)
      const page = yield* (yield* Domains).list(c.get("account"), params)
      return c.json(paginatedEnvelope(page.domains.map((details) => domainBody(details, false)), params, page.total))
    })))
  .post("/domains", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateDomainInput)
      return c.json(ok(domainBody(yield* (yield* Domains).create(c.get("account"), body))), 201)
    })))
  .get("/domains/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(domainBody(yield* (yield* Domains).get(c.get("account"), c.req.param("id")))))
    })))
  .post("/domains/:id/verify", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(domainBody(yield* (yield* Domains).verify(c.get("account"), c.req.param("id")))))
    })))
  .delete("/domains/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* Domains).remove(c.get("account"), c.req.param("id"))))
    })))
