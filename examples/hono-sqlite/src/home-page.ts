// GET / of the starter: a small page with the way in to everything a developer opens while working on Mailroom,
// instead of the JSON 404 of an unknown path. The API reference is served by Mailroom itself.
import { docsHomeUrl } from "@mailroom/mailroom"

export interface HomePageOptions {
  /** The operator API, and with it the mail viewer, is on (ADMIN_TOKEN is set). */
  readonly adminOn: boolean
  /** Mail stays in the dev outbox (SMTP_URL is unset). */
  readonly devOutbox: boolean
}

const item = (href: string, label: string, note: string) =>
  `<li><a href="${href}">${label}</a> <span>${note}</span></li>`

export const homePage = ({ adminOn, devOutbox }: HomePageOptions): string => {
  const outbox = !devOutbox
    ? "<li>Mail viewer: <span>off: SMTP_URL is set, so mail goes to the relay</span></li>"
    : adminOn
      ? item("/admin/mail", "Mail viewer", "the dev outbox: every message Mailroom kept instead of sending (sign in with ADMIN_TOKEN)")
      : "<li>Mail viewer: <span>off until ADMIN_TOKEN is set</span></li>"
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailroom</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.5rem; } li { margin: .4rem 0; } span { color: #57606a; } code { font-size: .9em; }
</style>
</head>
<body>
<main>
<h1>Mailroom is running</h1>
<p>The API is under <code>/v1</code>; the operator API under <code>/admin</code>.</p>
<ul>
${item("/api/health", "Health check", "the database and the background work")}
${item("/v1/reference", "API reference", "every /v1 route")}
${item("/v1/openapi.json", "OpenAPI document", "for client generators")}
${outbox}
${item(docsHomeUrl, "Documentation", "getting started, embedding, sending, errors")}
</ul>
</main>
</body>
</html>
`
}
