// publish: milliseconds to prepare an MJML draft of about 100 lines for a release (TemplateEngine.prepare: the markup
// checks on the source, the MJML compile in the engine's worker thread, the checks on the compiled HTML and the
// Handlebars parse of each part), the work a publish does besides writing the release. There is no floor and no target:
// the line prints the median time, and beside it the same MJML compiled by `mjml` alone in this process, to show what
// the worker and the checks add. The store plays no part, so it runs once, not per backend.
// Run: `npm run bench -- publish` (MAILROOM_BENCH_ROUNDS changes the number of timed prepares, default 30).
import { createRequire } from "node:module"
import { Effect } from "effect"
import { TemplateEngine } from "@mailroom/core"
import { createMailroom } from "@mailroom/mailroom"

const rounds = Number(process.env.MAILROOM_BENCH_ROUNDS ?? 30)
const warmups = 5

const product = (i) => `
    <mj-section padding="8px 24px">
      <mj-column width="30%"><mj-image src="https://cdn.example.com/p/${i}.png" alt="Product ${i}" /></mj-column>
      <mj-column width="70%">
        <mj-text font-size="16px">{{items.${i}.name}}</mj-text>
        <mj-text color="#555555">{{items.${i}.quantity}} × {{items.${i}.price}}</mj-text>
      </mj-column>
    </mj-section>`

/** A receipt: head with styles, a header, eight product rows, totals, a button and a footer; about 100 lines. */
export const receipt = `<mjml>
  <mj-head>
    <mj-title>Your receipt</mj-title>
    <mj-preview>Thanks for your order {{order_id}}</mj-preview>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="14px" line-height="20px" />
    </mj-attributes>
    <mj-style inline="inline">.total td { font-weight: bold; }</mj-style>
    <mj-style>@media (max-width: 480px) { .hide-mobile { display: none !important; } }</mj-style>
  </mj-head>
  <mj-body background-color="#f4f4f4">
    <mj-section background-color="{{theme.colors.primary}}" padding="16px">
      <mj-column>
        <mj-image width="120px" src="{{theme.logo_url}}" alt="{{theme.name}}" />
      </mj-column>
    </mj-section>
    <mj-section background-color="#ffffff" padding="24px">
      <mj-column>
        <mj-text font-size="22px">Thanks, {{first_name}}!</mj-text>
        <mj-text>Your order {{order_id}} is confirmed.{{#if gift}} It is wrapped as a gift.{{/if}}</mj-text>
      </mj-column>
    </mj-section>${[0, 1, 2, 3, 4, 5, 6, 7].map(product).join("")}
    <mj-section background-color="#ffffff" padding="16px 24px">
      <mj-column>
        <mj-table css-class="total">
          <tr><td>Subtotal</td><td align="right">{{subtotal}}</td></tr>
          <tr><td>Shipping</td><td align="right">{{shipping}}</td></tr>
          <tr><td>Total</td><td align="right">{{total}}</td></tr>
        </mj-table>
        <mj-button href="{{order_url}}" background-color="{{theme.colors.primary}}">View your order</mj-button>
      </mj-column>
    </mj-section>
    <mj-section padding="16px">
      <mj-column>
        <mj-raw><!--[if mso]><table role="presentation" width="100%"><tr><td><![endif]--></mj-raw>
        <mj-text css-class="hide-mobile" color="#888888" font-size="12px">{{theme.footer}}</mj-text>
        <mj-raw><!--[if mso]></td></tr></table><![endif]--></mj-raw>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]

const time = async (fn) => {
  const started = performance.now()
  await fn()
  return performance.now() - started
}

export const run = async () => {
  const mailroom = createMailroom({ database: "memory:", backgroundWork: false })
  try {
    const source = { format: "mjml", subject: "Your receipt {{order_id}}", html: receipt, text: null }
    const prepare = () => mailroom.runtime.runPromise(Effect.flatMap(TemplateEngine, (engine) => engine.prepare(source)))
    const mjml2html = createRequire(import.meta.url)("mjml")
    const alone = () => mjml2html(receipt, { validationLevel: "soft", ignoreIncludes: true })
    for (let i = 0; i < warmups; i++) {
      await prepare()
      await alone()
    }
    const prepared = []
    const compiled = []
    for (let i = 0; i < rounds; i++) {
      prepared.push(await time(prepare))
      compiled.push(await time(alone))
    }
    const lines = receipt.split("\n").length
    console.log(
      `bench publish engine: prepare=${median(prepared).toFixed(1)} ms mjml-alone=${median(compiled).toFixed(1)} ms ` +
      `(MJML of ${lines} lines, median of ${rounds}; no floor)`,
    )
  } finally {
    await mailroom.close()
  }
}
