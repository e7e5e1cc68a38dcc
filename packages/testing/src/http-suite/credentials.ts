/** The one credential, `Authorization: Bearer <token>`, on /v1 and /admin alike: every other way of presenting a key
 *  or the admin token answers 401 and changes nothing, and failed authentications are limited per client address.
 *  Spec: audience "Authentication" 1-2, sending "Authentication" 1 and 5; CONTRACT.md, "Operator API". */
import { describe, expect, it } from "vitest"
import { adminToken, type Client, expectError } from "./client.js"

/** Failed authentications per minute of the target the limit is tested on. */
export const failedAuthenticationsLimit = 5

/** The same secret presented in every way but the right one. `secret` is an API key or the admin token. */
const wrongWays = (secret: string): ReadonlyArray<readonly [string, { path?: string; headers?: Record<string, string> }]> => {
  const middle = Math.floor(secret.length / 2)
  return [
    ["a bare key, without a scheme", { headers: { authorization: secret } }],
    ["the Basic scheme", { headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString("base64")}` } }],
    ["the Basic scheme with the secret as is", { headers: { authorization: `Basic ${secret}` } }],
    ["the Token scheme", { headers: { authorization: `Token ${secret}` } }],
    ["an empty Bearer", { headers: { authorization: "Bearer" } }],
    ["a Bearer of spaces", { headers: { authorization: "Bearer    " } }],
    ["junk after the key", { headers: { authorization: `Bearer ${secret} junk` } }],
    ["a second credential after the key", { headers: { authorization: `Bearer ${secret}, Bearer ${secret}` } }],
    ["a space inside the key", { headers: { authorization: `Bearer ${secret.slice(0, middle)} ${secret.slice(middle)}` } }],
    ["a tab instead of a space", { headers: { authorization: `Bearer\t${secret}` } }],
    ["the scheme glued to the key", { headers: { authorization: `Bearer${secret}` } }],
    ["the key in the query string (api_key)", { path: `?api_key=${encodeURIComponent(secret)}` }],
    ["the key in the query string (access_token)", { path: `?access_token=${encodeURIComponent(secret)}` }],
    ["the key in a cookie", { headers: { cookie: `api_key=${secret}; authorization=Bearer%20${secret}` } }],
    ["the key in Proxy-Authorization", { headers: { "proxy-authorization": `Bearer ${secret}` } }],
  ]
}

/** Spellings of the right way: the scheme in any case, one or more spaces before the token. */
const rightWays = (secret: string): ReadonlyArray<string> =>
  [`Bearer ${secret}`, `bearer ${secret}`, `BEARER ${secret}`, `bEaReR   ${secret}`]

export const credentialTests = (client: () => Client, strictClient: () => Promise<Client>) => {
  describe("credentials on /v1", () => {
    it.each(rightWays("<key>"))("accepts %s", async (spelling) => {
      const account = await client().account()
      const answer = await client().call("GET", "/v1/contacts", { headers: { authorization: spelling.replace("<key>", account.key) } })
      expect(answer.status, answer.text).toBe(200)
    })

    it.each(wrongWays("<key>"))("answers 401 to %s", async (_, { path = "", headers = {} }) => {
      const account = await client().account()
      const fill = (text: string) => text.replaceAll("<key>", account.key).replaceAll("%3Ckey%3E", encodeURIComponent(account.key))
      const filled = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, fill(value)]))
      const answer = await client().call("GET", `/v1/contacts${fill(path)}`, { headers: filled })
      expect(answer.status, answer.text).toBe(401)
      expect(["UNAUTHORIZED", "INVALID_CREDENTIALS"]).toContain(answer.json.error.code)
      expectError(answer, 401, answer.json.error.code)
      expect(answer.json.error.fix_action).toMatch(/API key|API_KEY/)
    })

    it("answers 401 to a key sent in the body, creating nothing", async () => {
      const account = await client().account()
      for (const body of [{ email: "body-key@example.com", apiKey: account.key }, { email: "body-key@example.com", api_key: account.key }]) {
        expectError(await client().call("POST", "/v1/contacts", { body }), 401, "UNAUTHORIZED")
      }
      expect(await client().count(account.key)).toBe(0)
    })

    it("answers 401 to a key that Mailroom could not have issued: wrong prefix, length or alphabet", async () => {
      const account = await client().account()
      const random = account.key.slice(account.key.lastIndexOf("_") + 1)
      for (const key of [
        `svc_prod_${random}`, `svc_live_${random}0`, `svc_live_${random.slice(1)}`, `svc_live_${random.toUpperCase()}`,
        `svc_live_${random.slice(1)}g`, `svc_live_${random.slice(1)}é`, `svc_app_${random}`, `${random}`,
      ]) {
        expectError(await client().call("GET", "/v1/contacts", { key }), 401, "INVALID_CREDENTIALS")
      }
      expect((await client().call("GET", "/v1/contacts", { key: account.key })).status).toBe(200)
    })
  })

  describe("credentials on /admin", () => {
    it.each(rightWays(adminToken))("accepts %s", async (authorization) => {
      const answer = await client().call("POST", "/admin/accounts", { body: {}, headers: { authorization } })
      expect(answer.status, answer.text).toBe(201)
    })

    it.each(wrongWays(adminToken))("answers 401 to %s, creating nothing", async (_, { path = "", headers = {} }) => {
      const answer = await client().call("POST", `/admin/accounts${path}`, { body: { name: "never made" }, headers })
      expect(answer.status, answer.text).toBe(401)
      expectError(answer, 401, answer.json.error.code)
    })

    it("answers 401 to the token sent in the body", async () => {
      expectError(await client().call("POST", "/admin/accounts", { body: { adminToken, token: adminToken } }), 401, "UNAUTHORIZED")
    })

    it("says what to do in the words of the operator API: the admin token, not an API key", async () => {
      const account = await client().account()
      const v1 = await client().call("GET", "/v1/contacts", { headers: { authorization: "Basic abc" } })
      for (const answer of [
        await client().call("GET", `/admin/accounts/${account.id}`),
        await client().call("GET", `/admin/accounts/${account.id}`, { key: "wrong-token" }),
        await client().call("GET", `/admin/accounts/${account.id}`, { key: account.key }),
        await client().call("GET", `/admin/accounts/${account.id}`, { headers: { authorization: adminToken } }),
      ]) {
        expect(answer.status).toBe(401)
        expect(answer.json.error.fix_action).toContain("ADMIN_TOKEN")
        expect(answer.json.error.fix_action).not.toBe(v1.json.error.fix_action)
        expect(answer.json.error.message).not.toContain("API_KEY")
      }
    })
  })

  describe("failed authentications per client address", () => {
    it(`answers 429 RATE_LIMIT_EXCEEDED with Retry-After past ${failedAuthenticationsLimit} failures a minute, on /v1 and /admin alike`, async () => {
      const strict = await strictClient()
      const account = await strict.account()
      const unknown = `svc_live_${"0".repeat(47)}f`
      const attempts = [
        () => strict.call("GET", "/v1/contacts", { key: unknown }),
        () => strict.call("GET", "/v1/contacts", { headers: { authorization: account.key } }),
        () => strict.call("GET", "/v1/contacts", { key: "not-a-key" }),
        () => strict.call("POST", "/admin/accounts", { key: "wrong-token", body: {} }),
        () => strict.call("GET", "/v1/contacts"),
      ]
      // The account above was made with the admin token: successes are not counted.
      for (const attempt of attempts.slice(0, failedAuthenticationsLimit)) expect((await attempt()).status).toBe(401)
      for (const attempt of [...attempts, () => strict.call("GET", "/admin/accounts/acc_x", { key: adminToken })]) {
        const limited = await attempt()
        expectError(limited, 429, "RATE_LIMIT_EXCEEDED")
        const retryAfter = limited.json.error.context.retry_after
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true)
        expect(limited.headers.get("retry-after")).toBe(String(retryAfter))
      }
      // X-Forwarded-For is not believed unless the host trusts a proxy: it does not open a new count.
      const spoofed = await strict.call("GET", "/v1/contacts", { key: unknown, headers: { "x-forwarded-for": "203.0.113.7" } })
      expectError(spoofed, 429, "RATE_LIMIT_EXCEEDED")
    })
  })
}
