import { TemplateEngine } from "@mailroom/core"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

describe("createMailroom's template engine", () => {
  const mailroom = createMailroom({ database: "memory:", templates: { cacheSize: 10, mjml: { deadlineMs: 10_000 } } })
  afterAll(() => mailroom.close())

  it("is the handlebars-email-v2 engine, reachable from the runtime: an MJML draft prepares and its release renders", async () => {
    const rendered = await mailroom.runtime.runPromise(Effect.gen(function* () {
      const engine = yield* TemplateEngine
      const prepared = yield* engine.prepare({
        format: "mjml",
        subject: "Hi {{first_name}}",
        html: "<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{first_name}}</mj-text></mj-column></mj-section></mj-body></mjml>",
        text: null,
      })
      expect(prepared.engine).toBe("handlebars-email-v2")
      return yield* engine.render({ cacheKey: "rel_test", ...prepared }, { variables: { first_name: "<Ada>" } }, { mode: "lenient" })
    }))
    expect(rendered.subject).toBe("Hi <Ada>")
    expect(rendered.html).toContain("Hello &lt;Ada&gt;")
    expect(rendered.text).toContain("Hello <Ada>")
  }, 60_000)
})
