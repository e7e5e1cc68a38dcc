/** Requests on a brand's verified tracking domain (docs/tracking.md, "Tracking domain") reach the links of its mail
 *  only: the open pixel, click redirects, and the unsubscribe, confirmation and preference pages with their posts.
 *  Every other path there answers 404 as an unknown route does, so that a customer's domain never serves the API, the
 *  operator routes or the reference. Whether a host is a tracking domain is read once a minute per host (at most 1,000
 *  hosts kept), so that API requests do not each cost a lookup; a domain verified or deleted is seen within a minute. */
import { RouteNotFound, TrackingDomains } from "@mailroom/core"
import { Effect, Exit } from "effect"
import { createMiddleware } from "hono/factory"
import type { MailroomEnv } from "./env.js"
import { errorResponse } from "./errors.js"

/** The paths of links in mail: /o, /l, /u, /c, /p and the one-click unsubscribe. */
const linkPath = /^\/(?:[olucp]\/|v1\/unsubscribe(?:\/|$))/

const keptMs = 60_000
const keptHosts = 1_000

export const linkHostGate = () => {
  const known = new Map<string, { readonly linksOnly: boolean; readonly until: number }>()
  return createMiddleware<MailroomEnv>(async (c, next) => {
    if (linkPath.test(c.req.path)) return next()
    const host = new URL(c.req.url).hostname.toLowerCase()
    const now = Date.now()
    let entry = known.get(host)
    if (entry === undefined || entry.until <= now) {
      const exit = await c.get("runExit")(Effect.flatMap(TrackingDomains, (domains) => domains.isLinkHost(host)))
      // A failing lookup leaves the request alone: the routes behind answer as they would on any host.
      entry = { linksOnly: Exit.isSuccess(exit) && exit.value, until: now + keptMs }
      if (known.size >= keptHosts) known.clear()
      known.set(host, entry)
    }
    if (entry.linksOnly) return errorResponse(new RouteNotFound({ method: c.req.method, path: c.req.path }))
    return next()
  })
}
