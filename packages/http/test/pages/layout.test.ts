import { describe, expect, it } from "vitest"
import { escapeHtml, html, raw, safeUrl } from "../../src/pages/html.js"
import { defaultPageTheme, makePageTheme, pageResponse, renderPage, textField } from "../../src/pages/layout.js"

describe("page html", () => {
  it("escapes every interpolated value, in text and in attributes", () => {
    const evil = `<script>alert("x")</script>' onmouseover=alert(1)`
    const out = html`<p title="${evil}">${evil}</p>`.value
    expect(out).not.toContain("<script>")
    expect(out).not.toContain(`"x"`)
    expect(out).toBe(`<p title="${escapeHtml(evil)}">${escapeHtml(evil)}</p>`)
    expect(escapeHtml(`&<>"'\`=`)).toBe("&amp;&lt;&gt;&quot;&#39;&#96;&#61;")
  })

  it("keeps nested markup, lists and raw markup as they are, and prints nothing for empty values", () => {
    const items = ["a<b", "c"].map((x) => html`<li>${x}</li>`)
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${raw("<hr>")}`.value)
      .toBe("<ul><li>a&lt;b</li><li>c</li></ul><hr>")
  })

  it("accepts only http(s) URLs", () => {
    expect(safeUrl("javascript:alert(1)")).toBeUndefined()
    expect(safeUrl("data:text/html,hi")).toBeUndefined()
    expect(safeUrl("not a url")).toBeUndefined()
    expect(safeUrl("https://example.com/a?b=1")).toBe("https://example.com/a?b=1")
  })
})

describe("page layout", () => {
  it("renders a document with lang, title, landmarks and the theme's name", () => {
    const page = renderPage({ title: "Unsubscribe", body: html`<h1>Leave</h1>` })
    expect(page).toMatch(/^<!doctype html>/)
    expect(page).toContain(`<html lang="en">`)
    expect(page).toContain(`<title>Unsubscribe · ${defaultPageTheme.productName}</title>`)
    expect(page).toContain(`<main id="main">`)
    expect(page).toContain(`<header class="site">`)
    expect(page).toContain(`<meta name="viewport"`)
  })

  it("escapes the theme's texts and refuses theme values that would break out of the stylesheet", () => {
    const theme = makePageTheme({
      productName: "<b>Acme</b>",
      footerText: "1 Main St <script>",
      logoUrl: "javascript:alert(1)",
      lang: "en\"><script>",
      fontFamily: "x}</style><script>",
      colors: { accent: "red;}</style><script>alert(1)</script>", text: "#102030" },
    })
    const page = renderPage({ title: "T", body: html`<h1>T</h1>`, theme })
    expect(page).not.toContain("<script>")
    expect(page).not.toContain("javascript:")
    expect(page).toContain("&lt;b&gt;Acme&lt;/b&gt;")
    expect(page).toContain(`--accent:${defaultPageTheme.colors.accent}`)
    expect(page).toContain("--text:#102030")
    expect(page).toContain(`<html lang="en">`)
  })

  it("answers no-store HTML that no page may frame unless asked", async () => {
    const response = pageResponse({ title: "T", body: html`<h1>T</h1>`, status: 410 })
    expect(response.status).toBe(410)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self'")
    const framed = pageResponse({ title: "T", body: html``, frameAncestors: ["https://shop.example"] })
    expect(framed.headers.get("content-security-policy")).toContain("frame-ancestors https://shop.example")
    expect(await response.text()).toContain("<h1>T</h1>")
  })

  it("labels a field and ties its hint to it", () => {
    const out = textField({ name: "email", label: "Email", type: "email", required: true, hint: "We never share it", value: `"x"` }).value
    expect(out).toContain(`<label for="f-email">`)
    expect(out).toContain(`id="f-email"`)
    expect(out).toContain(`aria-describedby="f-email-hint"`)
    expect(out).toContain(`value="&quot;x&quot;"`)
    expect(out).toContain(" required")
  })
})
