/** The signup form as recipients see it: the hosted page `{APP_URL}/f/<id>` and the embed snippet a host pastes into
 *  its own site. Both post the same fields to POST /v1/forms/<id>/submit and work without JavaScript; the snippet's
 *  small script, when it runs, posts with fetch and shows the answer in place. docs/forms.md. */
import { type Form, type FormField, formLimits, honeypotField } from "@mailroom/core"
import { html, type HtmlValue, raw, type SafeHtml } from "./html.js"
import { notice, type PageTheme, pageResponse, submitButton, textField } from "./layout.js"

/** The hidden field bots fill and people never see. A submission that fills it is answered as a success and dropped. */
export { honeypotField }

/** A bot-challenge widget the page shows when the host configured one (Cloudflare Turnstile, say). */
export interface ChallengeWidget {
  readonly siteKey: string
  /** The provider's widget script and the origin it is served from (allowed by the page's CSP). */
  readonly scriptUrl: string
  readonly origin: string
  /** The class of the element the script turns into the widget; the widget posts its answer in `fieldName`. */
  readonly className: string
  readonly fieldName: string
}

export interface FormLinks {
  /** POST /v1/forms/<id>/submit, absolute. */
  readonly submitUrl: string
  /** The hosted page, absolute. */
  readonly pageUrl: string
}

export const formLinks = (appUrl: string, form: Pick<Form, "id">): FormLinks => {
  const origin = appUrl.replace(/\/+$/, "")
  return { submitUrl: `${origin}/v1/forms/${form.id}/submit`, pageUrl: `${origin}/f/${form.id}` }
}

const inputTypes = { text: "text", tel: "tel", url: "url", number: "number", date: "date" } as const
const autocompleteOf: Record<string, string> = { firstName: "given-name", lastName: "family-name", phone: "tel" }

const fieldControl = (field: FormField, idPrefix: string, value: string | undefined): SafeHtml => {
  const id = `${idPrefix}${field.name}`
  if (field.type === "checkbox") {
    return html`<div class="check"><input id="${id}" type="checkbox" name="${field.name}" value="yes"${value !== undefined && raw(" checked")}${field.required && raw(" required")}>
<div><label for="${id}">${field.label}${field.required && html` <span class="required" aria-hidden="true">*</span>`}</label></div></div>`
  }
  return textField({
    id, name: field.name, label: field.label, type: inputTypes[field.type], value, required: field.required,
    autocomplete: autocompleteOf[field.name], maxLength: field.maxLength ?? formLimits.fieldValueLength,
  })
}

export interface FormControlsOptions {
  /** Prefixes every element id, so that two forms on one page never share one. */
  readonly idPrefix: string
  /** Values to show again (after a refused submission); always escaped. */
  readonly values?: Readonly<Record<string, string>>
  readonly challenge?: ChallengeWidget | undefined
}

/** The inside of the form: address, the form's fields in order, the honeypot, the challenge and the button. */
export const formControls = (form: Form, options: FormControlsOptions): SafeHtml => {
  const values = options.values ?? {}
  const p = options.idPrefix
  return html`<div class="field"><label for="${p}email">Email address <span class="required" aria-hidden="true">*</span></label>
<input id="${p}email" name="email" type="email" required autocomplete="email" maxlength="254"${values.email !== undefined && html` value="${values.email}"`}></div>
${form.fields.map((field) => fieldControl(field, p, values[field.name]))}
<div class="hp" aria-hidden="true"><label for="${p}${honeypotField}">Leave this field empty</label><input id="${p}${honeypotField}" type="text" name="${honeypotField}" tabindex="-1" autocomplete="off"></div>
${options.challenge && html`<div class="${options.challenge.className}" data-sitekey="${options.challenge.siteKey}"></div>`}
<div class="actions">${submitButton(form.submitLabel ?? "Subscribe")}</div>`
}

// Each path below answers a fixed text, whoever the address belongs to: nothing tells an existing subscriber from a
// new one.
export const submittedMessage = (form: Pick<Form, "doubleOptIn">): string =>
  form.doubleOptIn
    ? "Almost done: we sent you an email. Follow the link in it to confirm your subscription."
    : "Thank you for signing up."

export interface FormPageOptions {
  readonly theme: PageTheme
  readonly links: FormLinks
  readonly state?: "form" | "submitted"
  readonly status?: number
  /** Shown above the form (a refused submission), announced as an alert. */
  readonly error?: string | undefined
  readonly values?: Readonly<Record<string, string>>
  readonly challenge?: ChallengeWidget | undefined
}

/** The hosted form page. Only the form's allowed origins may frame it (an iframe embed); it may post only to its
 *  own origin and be redirected to the form's success page. */
export const formPage = (form: Form, options: FormPageOptions): Response => {
  const submitted = options.state === "submitted"
  const body: HtmlValue = submitted
    ? html`<h1>${form.name}</h1>${notice("success", submittedMessage(form))}`
    : html`<h1>${form.name}</h1>
${options.error && notice("error", options.error)}
<form method="post" action="${options.links.submitUrl}" novalidate>
${formControls(form, { idPrefix: "f-", values: options.values ?? {}, challenge: options.challenge })}
</form>
${form.consentText !== null && html`<p class="hint">${form.consentText}</p>`}`
  const redirect = form.successRedirectUrl === null ? [] : [new URL(form.successRedirectUrl).origin]
  return pageResponse({
    title: form.name,
    body: html`${body}`,
    theme: options.theme,
    status: options.status ?? 200,
    frameAncestors: form.allowedOrigins,
    formTargets: [new URL(options.links.submitUrl).origin, ...redirect],
    ...(options.challenge === undefined ? {} : {
      scriptSources: [options.challenge.origin], frameSources: [options.challenge.origin],
    }),
  })
}

/** The script of the embed snippet: posts the form with fetch, asks for JSON, and shows the answer in the form's status
 *  line; a browser without JavaScript posts the form itself and follows the redirect. */
const embedScript = `(function(){var f=document.currentScript&&document.currentScript.previousElementSibling;` +
  `if(!f||!window.fetch||!window.FormData)return;var s=f.querySelector("[data-mailroom-status]");` +
  `f.addEventListener("submit",function(e){e.preventDefault();var b=f.querySelector("button[type=submit]");` +
  `if(b)b.disabled=true;fetch(f.action,{method:"POST",body:new URLSearchParams(new FormData(f)),` +
  `headers:{accept:"application/json"}}).then(function(r){return r.json().then(function(j){return[r.ok,j]})})` +
  `.then(function(a){s.textContent=a[0]?a[1].data.message:a[1].error.message;if(a[0])f.reset()})` +
  `.catch(function(){s.textContent="The form could not be sent. Please try again."})` +
  `.then(function(){if(b)b.disabled=false})})})();`

/** The snippet a host pastes into its page: the form (labelled, posting to Mailroom) and the script after it. The
 *  host's own stylesheet styles it; the honeypot hides itself with an inline style. */
export const embedSnippet = (form: Form, links: FormLinks): string => {
  const p = `mailroom-${form.id}-`
  const controls = formControls(form, { idPrefix: p }).value.replace(
    `<div class="hp" aria-hidden="true">`,
    `<div aria-hidden="true" style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden">`,
  )
  return html`<form class="mailroom-form" method="post" action="${links.submitUrl}">
${raw(controls)}
<p role="status" aria-live="polite" data-mailroom-status></p>
</form>
<script>${raw(embedScript)}</script>
`.value
}
