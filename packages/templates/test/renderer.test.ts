import type { ReleaseContent, RenderOptions, RenderValues } from "@mailroom/core"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeRenderer } from "../src/renderer.js"

const release = (over: Partial<ReleaseContent> = {}): ReleaseContent => ({
  cacheKey: "rel_1",
  subject: "Hello {{first_name}}",
  html: "<p>Hello {{first_name}}</p>",
  text: "Hello {{first_name}}",
  ...over,
})

const lenient: RenderOptions = { mode: "lenient" }
const strict: RenderOptions = { mode: "strict" }
const legacy: RenderOptions = { mode: "legacy" }

const render = (content: ReleaseContent, values: RenderValues, options: RenderOptions = lenient) =>
  makeRenderer().render(content, values, options)

const rendered = (content: ReleaseContent, values: RenderValues, options: RenderOptions = lenient) =>
  Either.getOrThrow(render(content, values, options))

const failure = (content: ReleaseContent, values: RenderValues, options: RenderOptions) => {
  const result = render(content, values, options)
  if (Either.isRight(result)) throw new Error("expected the render to fail")
  return result.left
}

describe("escaping", () => {
  it("escapes values in the html and keeps them as they are in the subject and text", () => {
    const value = `<script>alert("x")</script> & 'q' \`b\` =`
    const out = rendered(release(), { variables: { first_name: value } })
    expect(out.html).toBe("<p>Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27; &#x60;b&#x60; &#x3D;</p>")
    expect(out.text).toBe(`Hello ${value}`)
    expect(out.subject).toBe(`Hello ${value}`)
  })

  it("never lets a value open a tag in the html, whatever it holds", () => {
    fc.assert(fc.property(fc.string(), (value) => {
      const out = rendered(release({ html: "<p>{{v}}</p><a href=\"{{v}}\">x</a>" }), { variables: { v: value } })
      const inner = out.html.slice(3, out.html.indexOf("</p>"))
      expect(inner).not.toMatch(/[<>"'`=]/)
    }))
  })

  it("makes a subject one line: line breaks in a value become spaces", () => {
    expect(rendered(release(), { variables: { first_name: "Ada\r\nBcc: x@example.com" } }).subject)
      .toBe("Hello Ada Bcc: x@example.com")
  })

  it("derives the text part from the rendered html when the release has none", () => {
    const out = rendered(release({ text: null, html: "<h1>Hi {{first_name}}</h1><p>See <a href=\"https://example.com/\">this</a></p>" }), {
      variables: { first_name: "Ada" },
    })
    expect(out.text).toContain("HI ADA")
    expect(out.text).toContain("this [https://example.com/]")
  })
})

describe("names", () => {
  it("are case-sensitive in the subject, html and text", () => {
    const content = release({ subject: "{{Name}}/{{name}}", html: "<p>{{Name}}/{{name}}</p>", text: "{{Name}}/{{name}}" })
    const out = rendered(content, { variables: { name: "lower", Name: "Upper" } })
    expect(out.subject).toBe("Upper/lower")
    expect(out.html).toBe("<p>Upper/lower</p>")
    expect(out.text).toBe("Upper/lower")
  })

  it("read the brand as theme.* and the pipeline's links, which win over variables of the same names", () => {
    const content = release({ html: "<a href=\"{{unsubscribe_url}}\" style=\"color: {{theme.colors.primary}}\">{{theme.name}}</a>" })
    const out = rendered(content, {
      variables: { unsubscribe_url: "https://evil.example/", theme: { name: "Not the brand" } },
      theme: { name: "Acme", colors: { primary: "#ff0000" } },
      pipeline: { unsubscribe_url: "https://t.example/u/tok" },
    })
    expect(out.html).toBe("<a href=\"https://t.example/u/tok\" style=\"color: #ff0000\">Acme</a>")
  })
})

describe("prototype access", () => {
  it.each([
    "{{constructor}}", "{{__proto__}}", "{{constructor.name}}", "{{lookup this \"constructor\"}}",
    "{{#with constructor}}{{name}}{{/with}}", "{{first_name.constructor}}", "{{first_name.toString}}",
    "{{#with __proto__}}{{toString}}{{/with}}",
  ])("%s renders nothing", (source) => {
    const out = rendered(release({ cacheKey: source, html: `<p>${source}</p>` }), { variables: { first_name: "Ada" } })
    expect(out.html).toBe("<p></p>")
  })

  it("does not run a helper that is not built in, nor call helperMissing", () => {
    const error = failure(release({ html: "<p>{{shout first_name}}</p>" }), { variables: { first_name: "Ada" } }, lenient)
    expect(error._tag).toBe("ValidationFailed")
  })
})

describe("lenient mode (account templates)", () => {
  it("renders a missing variable empty and ignores an extra one", () => {
    const out = rendered(release({ html: "<p>{{first_name}}|{{order.id}}</p>" }), { variables: { extra: "x" } })
    expect(out.html).toBe("<p>|</p>")
    expect(out.subject).toBe("Hello ")
  })
})

describe("strict mode (application templates)", () => {
  const declared = {
    first_name: { type: "string", required: true },
    order_id: { type: "string", required: true },
    nickname: { type: "string", required: false },
    link: { type: "string", required: false, format: "url" },
    items: { type: "array", required: false },
  }
  const content = release({ html: "<p>{{first_name}} {{order_id}} {{nickname}}</p>" })

  it("names every required variable that is absent", () => {
    const error = failure(content, { variables: { nickname: "A" } }, { mode: "strict", declared })
    expect(error._tag).toBe("MissingTemplateVariables")
    expect(error.code).toBe("MISSING_TEMPLATE_VARIABLES")
    expect(error.message).toContain("first_name, order_id")
  })

  it("refuses a variable the schema does not declare, naming it", () => {
    const error = failure(content, { variables: { first_name: "A", order_id: "1", First_Name: "B" } }, { mode: "strict", declared })
    expect(error._tag).toBe("UnknownTemplateVariables")
    expect(error.message).toContain("First_Name")
  })

  it("refuses values of another type than declared", () => {
    const error = failure(content, {
      variables: { first_name: 42, order_id: "1", link: "javascript:alert(1)", items: "a" },
    }, { mode: "strict", declared })
    expect(error._tag).toBe("MistypedTemplateVariables")
    expect(error.message).toBe("variables: first_name must be a string; link must be an http or https URL; items must be an array")
  })

  it("renders when every required variable is given; an optional one renders empty", () => {
    const out = rendered(content, { variables: { first_name: "Ada", order_id: "7" } }, { mode: "strict", declared })
    expect(out.html).toBe("<p>Ada 7 </p>")
  })

  it("without a schema, requires what the template reads and refuses the rest; theme and links are the pipeline's", () => {
    const source = release({ subject: "{{greeting}}", html: "<p>{{first_name}} {{theme.name}} {{unsubscribe_url}}</p>", text: null })
    expect(failure(source, { variables: { first_name: "Ada" } }, strict)._tag).toBe("MissingTemplateVariables")
    expect(failure(source, { variables: { first_name: "Ada", greeting: "Hi", other: "x" } }, strict)._tag).toBe("UnknownTemplateVariables")
    const out = rendered(source, { variables: { first_name: "Ada", greeting: "Hi" }, theme: { name: "Acme" }, pipeline: { unsubscribe_url: "u" } }, strict)
    expect(out.html).toBe("<p>Ada Acme u</p>")
  })

  it("counts the pipeline's values as given", () => {
    const out = rendered(release({ html: "<a href=\"{{confirm_url}}\">x</a>" }), { variables: {}, pipeline: { confirm_url: "https://c" } }, {
      mode: "strict", declared: { confirm_url: { type: "string", required: true } },
    })
    expect(out.html).toBe("<a href=\"https://c\">x</a>")
  })
})

describe("legacy mode", () => {
  it("keeps an unresolved variable as the literal {{name}} in the subject, html and text", () => {
    const content = release({ subject: "Hi {{first_name}} {{last_name}}", html: "<p>{{ first_name }} {{user.email}} {{last_name}}</p>", text: "{{last_name}}" })
    const out = rendered(content, { variables: { last_name: "<Lovelace>" } }, legacy)
    expect(out.subject).toBe("Hi {{first_name}} <Lovelace>")
    expect(out.html).toBe("<p>{{first_name}} {{user.email}} &lt;Lovelace&gt;</p>")
    expect(out.text).toBe("<Lovelace>")
  })

  it("renders a given empty value as empty, not as the literal", () => {
    expect(rendered(release(), { variables: { first_name: "" } }, legacy).subject).toBe("Hello ")
  })
})

describe("the cache of compiled releases", () => {
  it("compiles a release once however many times it renders", () => {
    const renderer = makeRenderer()
    for (let i = 0; i < 50; i++) Either.getOrThrow(renderer.render(release(), { variables: { first_name: `n${i}` } }, lenient))
    expect(renderer.compilations()).toBe(1)
  })

  it("is bounded: past its capacity the least recently used release goes first", () => {
    const renderer = makeRenderer({ cacheSize: 3 })
    const use = (key: string) => Either.getOrThrow(renderer.render(release({ cacheKey: key }), { variables: {} }, lenient))
    for (const key of ["a", "b", "c"]) use(key)
    use("a") // a is now the most recently used; b the least
    use("d")
    expect(renderer.cached()).toBe(3)
    expect(renderer.compilations()).toBe(4)
    use("a")
    use("c")
    use("d")
    expect(renderer.compilations()).toBe(4)
    use("b")
    expect(renderer.compilations()).toBe(5)
  })

  it("compiles again when a key comes back with other content, rather than serving the old one", () => {
    const renderer = makeRenderer()
    Either.getOrThrow(renderer.render(release(), { variables: {} }, lenient))
    const out = Either.getOrThrow(renderer.render(release({ subject: "Bye" }), { variables: {} }, lenient))
    expect(out.subject).toBe("Bye")
    expect(renderer.compilations()).toBe(2)
  })
})
