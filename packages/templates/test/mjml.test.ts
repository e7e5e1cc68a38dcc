import type { TemplateSource } from "@mailroom/core"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeTemplateEngine, type TemplateEngineOptions } from "../src/engine.js"

/** Runs `body` with an engine made with `options`, closing it (and its worker) afterwards. */
const withEngine = async <A>(options: TemplateEngineOptions, body: (prepare: (source: TemplateSource) => Promise<Exit.Exit<unknown, { _tag: string; message: string }>>) => Promise<A>) => {
  const scope = Effect.runSync(Scope.make())
  const { service } = await Effect.runPromise(Scope.extend(makeTemplateEngine(options), scope))
  try {
    return await body((source) => Effect.runPromiseExit(service.prepare(source)))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const mjml = (html: string): TemplateSource => ({ format: "mjml", subject: "Hi {{first_name}}", html, text: null })

const failureOf = (exit: Exit.Exit<unknown, { _tag: string; message: string }>) => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure === undefined) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure
}

const design = `<mjml>
  <mj-head>
    <mj-style>.cta a { letter-spacing: 1px; }</mj-style>
  </mj-head>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello {{first_name}}, {{#if vip}}thank you for staying with us{{/if}}</mj-text>
        <mj-button css-class="cta" href="{{order_url}}" background-color="{{theme.colors.primary}}">Your order</mj-button>
        <mj-raw><!--[if mso]><p>Outlook only</p><![endif]--></mj-raw>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`

/** A module that compiles forever: the worker runs it, and only terminating the worker stops it. */
const foreverModule = () => {
  const dir = mkdtempSync(join(tmpdir(), "mailroom-mjml-"))
  const file = join(dir, "forever.cjs")
  writeFileSync(file, "module.exports = function () { for (;;) {} }\n")
  return file
}

describe("MJML drafts", () => {
  it("compile to HTML keeping Handlebars expressions, mj-style and Outlook conditional comments", async () => {
    await withEngine({}, async (prepare) => {
      const exit = await prepare(mjml(design))
      if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
      const prepared = exit.value as { html: string; variables: ReadonlyArray<string> }
      expect(prepared.html).toContain("<!doctype html>")
      expect(prepared.html).toContain("Hello {{first_name}}, {{#if vip}}thank you for staying with us{{/if}}")
      expect(prepared.html).toContain("href=\"{{order_url}}\"")
      // MJML cannot type-check a colour that a brand fills at send time; it is kept for Handlebars.
      expect(prepared.html).toContain("background:{{theme.colors.primary}}")
      expect(prepared.html).toContain(".cta a { letter-spacing: 1px; }")
      expect(prepared.html).toContain("<!--[if mso]><p>Outlook only</p><![endif]-->")
      expect(prepared.variables).toEqual(["first_name", "order_url", "vip"])
    })
  }, 60_000)

  it("that does not compile fail naming the line", async () => {
    await withEngine({}, async (prepare) => {
      const broken = "<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-txt>x</mj-txt>\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>"
      const failure = failureOf(await prepare(mjml(broken)))
      expect(failure._tag).toBe("InvalidTemplateSyntax")
      expect(failure.message).toMatch(/^html \(line 5\): the MJML does not compile: line 5: Element mj-txt/)
      // Nothing of the server's paths reaches the message.
      expect(failure.message).not.toContain(process.cwd())
    })
  }, 60_000)

  it("refuses unsafe markup in the MJML source, and file includes", async () => {
    await withEngine({}, async (prepare) => {
      const unsafe = design.replace("<mj-raw>", "<mj-raw><img src=x onerror=alert(1)>")
      expect(failureOf(await prepare(mjml(unsafe)))._tag).toBe("UnsafeTemplateMarkup")
      const include = design.replace("<mj-section>", "<mj-include path=\"/etc/passwd\" />\n<mj-section>")
      const failure = failureOf(await prepare(mjml(include)))
      expect(failure._tag).toBe("UnsafeTemplateMarkup")
      expect(failure.message).toContain("<mj-include> (file includes are disabled) at line 6")
    })
  }, 60_000)

  it("that never ends are stopped at the deadline, and the next compile works", async () => {
    const started = Date.now()
    await withEngine({ mjml: { deadlineMs: 300, compilerModule: foreverModule() } }, async (prepare) => {
      const failure = failureOf(await prepare(mjml(design)))
      expect(failure._tag).toBe("MjmlCompileTimedOut")
      expect(failure.message).toBe("html: the MJML did not compile within 0.3 s and was stopped; simplify the template")
      // A second compile gets a new worker: the first one, still looping, would never answer.
      expect(failureOf(await prepare(mjml(design)))._tag).toBe("MjmlCompileTimedOut")
    })
    expect(Date.now() - started).toBeLessThan(30_000)
  }, 60_000)

  it("a real compile past a short deadline is stopped, and the engine compiles again afterwards", async () => {
    // About 1.4 MB of source (under the 2 MiB input limit), which takes far longer than two seconds to compile on any
    // machine; the output limit is raised so that only the deadline can stop it.
    const big = `<mjml><mj-body>${"<mj-section><mj-column><mj-text>{{x}}</mj-text><mj-button href=\"https://example.com/\">b</mj-button></mj-column></mj-section>".repeat(12_000)}</mj-body></mjml>`
    expect(big.length).toBeLessThan(2 * 1024 * 1024)
    await withEngine({ mjml: { deadlineMs: 2_000, outputBytes: 512 * 1024 * 1024 } }, async (prepare) => {
      expect(Exit.isSuccess(await prepare(mjml(design)))).toBe(true)
      expect(failureOf(await prepare(mjml(big)))._tag).toBe("MjmlCompileTimedOut")
      // The stopped worker is replaced by a new one: the engine compiles again right after.
      expect(Exit.isSuccess(await prepare(mjml(design)))).toBe(true)
    })
  }, 60_000)

  it("over 2 MiB of source are refused before compiling", async () => {
    await withEngine({}, async (prepare) => {
      const large = `<mjml><mj-body><mj-section><mj-column><mj-text>${"x".repeat(2 * 1024 * 1024)}</mj-text></mj-column></mj-section></mj-body></mjml>`
      const failure = failureOf(await prepare(mjml(large)))
      expect(failure._tag).toBe("PayloadTooLarge")
      expect(failure.message).toBe("html is larger than 2097152 bytes")
    })
  }, 60_000)

  it("whose HTML is over the output limit are refused", async () => {
    await withEngine({ mjml: { outputBytes: 4096 } }, async (prepare) => {
      const failure = failureOf(await prepare(mjml(design)))
      expect(failure._tag).toBe("CompiledTemplateTooLarge")
      expect(failure.message).toMatch(/^html: the MJML compiles to \d+ bytes of HTML, more than the limit of 4096$/)
    })
  }, 60_000)
})
