/** The routes that take no API key (unsubscribe, one-click, the /u, /c and /p pages, the signup form page) are limited
 *  per client address, as every other endpoint is per API key: spec sending "Limits" (all other endpoints 200 per
 *  second), audience "Errors" (RATE_LIMIT_EXCEEDED with retry_after). Form submissions keep their own limits. */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

/** Requests per second to the public routes of the target the limit is tested on. */
export const publicRequestsLimit = 3

/**
 * Runs `attempt`, whose requests must all fall into one window of a per-second limiter. The window opens with the
 * address's first request, so an attempt that failed in less than 0.9 s failed for a reason of its own; one that took
 * longer (a machine under load) is run again once the window is over, at most three times.
 */
export const withinOneSecond = async (attempt: () => Promise<void>): Promise<void> => {
  for (let tries = 1; ; tries++) {
    const started = performance.now()
    try {
      return await attempt()
    } catch (error) {
      if (performance.now() - started < 900 || tries === 3) throw error
      await new Promise((resolve) => setTimeout(resolve, 1_100))
    }
  }
}

export const publicLimitTests = (strictClient: () => Promise<Client>) => {
  describe("public routes per client address", () => {
    it(`answers 429 RATE_LIMIT_EXCEEDED with Retry-After past ${publicRequestsLimit} requests a second, a page on the hosted pages; form submissions and API calls are not counted`, async () => {
      const strict = await strictClient()
      const account = await strict.account()
      await withinOneSecond(async () => {
        // Form submissions have their own limits (per address and per email) and are not counted here.
        const submit = { body: { email: "a@example.com" }, headers: { accept: "application/json" } }
        expectError(await strict.call("POST", "/v1/forms/frm_unknown/submit", submit), 404, "RESOURCE_NOT_FOUND")
        const spent = [
          await strict.call("POST", "/v1/unsubscribe", { body: { token: "not-a-token" } }),
          await strict.call("GET", "/u/not-a-token"),
          await strict.call("GET", "/f/frm_unknown"),
        ]
        expect(spent.map((answer) => answer.status)).toEqual([400, 400, 404])
        const json = await strict.call("POST", "/v1/unsubscribe/one-click?token=not-a-token")
        expectError(json, 429, "RATE_LIMIT_EXCEEDED")
        expect(json.json.error.context.retry_after).toBe(1)
        expect(json.headers.get("retry-after")).toBe("1")
        for (const [method, path] of [["GET", "/c/not-a-token"], ["POST", "/p/not-a-token"], ["GET", "/f/frm_unknown"]] as const) {
          const page = await strict.call(method, path)
          expect({ status: page.status, type: page.contentType }, `${method} ${path}`).toEqual({ status: 429, type: "text/html; charset=utf-8" })
          expect(page.headers.get("retry-after")).toBe("1")
          expect(page.text).toContain("Too many requests")
        }
        // The API is limited per key, and form submissions per address and email, not by the public routes' count.
        expect((await strict.call("GET", "/v1/contacts", { key: account.key })).status).toBe(200)
        expectError(await strict.call("POST", "/v1/forms/frm_unknown/submit", submit), 404, "RESOURCE_NOT_FOUND")
      })
    })
  })
}
