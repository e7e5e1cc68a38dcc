/** The dev mail viewer's two pages (docs/dev-outbox.md): the sign-in form, in the hosted pages' shell, and the viewer.
 *  The viewer is server-rendered markup plus one inline script (allowed by a per-response nonce) that reads the
 *  viewer's JSON routes: every value it shows goes in as text (textContent), never as markup, and each message's html
 *  only ever renders in the sandboxed iframe. New mail: the script asks for the list every 2 seconds. */
import { html, raw } from "./html.js"
import { defaultPageTheme, notice, pageResponse, type PageTheme } from "./layout.js"

/** How often the viewer asks for new mail. */
export const viewerPollMs = 2000

export interface LoginPageOptions {
  readonly theme: PageTheme
  readonly status: number
  readonly error?: string | undefined
  /** Where the form posts, relative to the page's own URL: `mail/login` from /admin/mail, `login` from the answer to
   *  POST /admin/mail/login. Relative, so that any mount prefix works. */
  readonly action: "mail/login" | "login"
  readonly headers?: Record<string, string> | undefined
}

/** The sign-in form: the admin token, posted to /admin/mail/login. */
export const loginPage = ({ theme, status, error, action, headers }: LoginPageOptions): Response =>
  pageResponse({
    title: "Sign in to the mail viewer",
    status,
    theme,
    ...(headers === undefined ? {} : { headers }),
    body: html`<h1>Mail viewer</h1>
${error === undefined
    ? html`<p>The dev outbox keeps every message Mailroom would send while SMTP_URL is unset. Sign in with the operator's admin token (ADMIN_TOKEN).</p>`
    : notice("error", error)}
<form method="post" action="${action}">
<div class="field"><label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required aria-describedby="token-hint"${error !== undefined && raw(" aria-invalid=\"true\" autofocus")}>
<p class="hint" id="token-hint">Kept in a session cookie for 12 hours; never put in a URL.</p></div>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  })

const cssColor = (theme: PageTheme, key: keyof PageTheme["colors"]) =>
  /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30})$/.test(theme.colors[key]) ? theme.colors[key] : defaultPageTheme.colors[key]

const stylesheet = (theme: PageTheme) => {
  const c = (key: keyof PageTheme["colors"]) => cssColor(theme, key)
  return `:root{--bg:${c("background")};--surface:${c("surface")};--text:${c("text")};--muted:${c("mutedText")};` +
    `--border:${c("border")};--accent:${c("accent")};--accent-text:${c("accentText")};--focus:${c("focus")};--danger:${c("danger")}}
*,*::before,*::after{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header.bar{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;padding:.75rem 1rem;background:var(--surface);border-bottom:1px solid var(--border)}
header.bar h1{font-size:1.25rem;margin:0 auto 0 0}
.search{display:flex;gap:.5rem;align-items:center}
.search label{font-weight:600}
input[type=search]{min-height:2.5rem;padding:.375rem .625rem;font:inherit;color:var(--text);background:var(--surface);border:1px solid var(--muted);border-radius:.375rem;width:16rem;max-width:100%}
button{min-height:2.5rem;padding:.375rem 1rem;font:inherit;font-weight:600;border-radius:.375rem;border:2px solid var(--accent);background:var(--surface);color:var(--accent);cursor:pointer}
button.danger{color:var(--danger);border-color:var(--danger)}
form{margin:0}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.layout{display:grid;grid-template-columns:minmax(16rem,24rem) 1fr;gap:0;min-height:calc(100vh - 4rem)}
nav.list{border-right:1px solid var(--border);background:var(--surface);overflow:auto}
nav.list h2,.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
#status{margin:0;padding:.5rem 1rem;color:var(--muted);font-size:.875rem;border-bottom:1px solid var(--border)}
ul.messages{list-style:none;margin:0;padding:0}
ul.messages li{border-bottom:1px solid var(--border)}
ul.messages button{display:block;width:100%;text-align:left;border:0;border-radius:0;background:var(--surface);color:var(--text);font-weight:400;padding:.625rem 1rem}
ul.messages button[aria-current=true]{background:var(--bg);box-shadow:inset 4px 0 0 var(--accent)}
ul.messages .subject{display:block;font-weight:600;overflow-wrap:anywhere}
ul.messages .meta{display:block;color:var(--muted);font-size:.875rem;overflow-wrap:anywhere}
section.message{padding:1rem 1.25rem;min-width:0}
section.message h2{font-size:1.25rem;margin:0 0 .5rem;overflow-wrap:anywhere}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.125rem .75rem;margin:0 0 1rem}
dl.summary dt{font-weight:600}
dl.summary dd{margin:0;overflow-wrap:anywhere}
[role=tablist]{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid var(--border);margin:0 0 1rem}
[role=tab]{border-radius:.375rem .375rem 0 0;border-width:1px 1px 0;border-color:var(--border);color:var(--text);font-weight:400}
[role=tab][aria-selected=true]{border-color:var(--accent);border-width:2px 2px 0;font-weight:600;color:var(--accent)}
iframe{width:100%;height:70vh;border:1px solid var(--border);border-radius:.375rem;background:#fff}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--surface);border:1px solid var(--border);border-radius:.375rem;padding:.75rem;margin:0;font-size:.875rem}
table{border-collapse:collapse;width:100%;font-size:.875rem;background:var(--surface)}
th,td{border:1px solid var(--border);padding:.375rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
td{white-space:pre-wrap}
a{color:var(--accent)}
.muted{color:var(--muted)}
.empty{padding:1rem;color:var(--muted)}
@media (max-width:48rem){.layout{grid-template-columns:1fr}nav.list{border-right:0;border-bottom:1px solid var(--border);max-height:40vh}input[type=search]{width:100%}.search{flex:1 1 100%}}`
}

/** The viewer's script: polling, search, the open message and its tabs, clearing. No value becomes markup. */
const script = (pollMs: number) => `(function () {
  "use strict";
  var state = { messages: [], selected: null, tab: "html", signature: null, query: "", asked: 0 };
  var list = document.getElementById("messages");
  var status = document.getElementById("status");
  var search = document.getElementById("search");
  var view = document.getElementById("message");
  var placeholder = document.getElementById("placeholder");
  var tabs = ["html", "text", "headers", "attachments", "raw"];
  var base = "mail/messages";
  var el = function (tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };
  var when = function (iso) { return new Date(iso).toLocaleString(); };
  var size = function (bytes) { return bytes < 1024 ? bytes + " B" : (bytes / 1024).toFixed(1) + " KB"; };
  var signedOut = function () { window.location.reload(); };
  var renderList = function () {
    var q = state.query;
    var shown = state.messages;
    list.replaceChildren.apply(list, shown.map(function (m) {
      var item = el("li");
      var button = el("button", { type: "button", "data-id": m.id, "aria-current": String(m.id === state.selected) });
      button.append(el("span", { "class": "subject" }, m.subject === "" ? "(no subject)" : m.subject));
      button.append(el("span", { "class": "meta" }, "From " + m.from + " to " + m.to.join(", ")));
      button.append(el("span", { "class": "meta" }, when(m.createdAt) + (m.attachments.length ? " · " + m.attachments.length + " attachment" + (m.attachments.length === 1 ? "" : "s") : "")));
      button.addEventListener("click", function () { open(m.id); });
      item.append(button);
      return item;
    }));
    var total = shown.length;
    status.textContent = q !== "" ? (total === 0 ? "No message matches “" + q + "”." : total + (total === 1 ? " message matches" : " messages match") + " “" + q + "”, newest first")
      : total === 0 ? "No mail yet: messages appear here as Mailroom sends them."
      : total + (total === 1 ? " message" : " messages") + ", newest first";
  };
  var showTab = function (name) {
    state.tab = name;
    tabs.forEach(function (t) {
      var tab = document.getElementById("tab-" + t);
      var selected = t === name;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
      document.getElementById("panel-" + t).hidden = !selected;
    });
    var m = current();
    if (name === "raw" && m) {
      var pre = document.getElementById("raw");
      if (pre.getAttribute("data-id") !== m.id) {
        pre.setAttribute("data-id", m.id);
        pre.textContent = "Loading…";
        fetch(base + "/" + encodeURIComponent(m.id) + "/raw", { credentials: "same-origin" }).then(function (r) {
          if (r.status === 401) return signedOut();
          return r.text().then(function (text) { pre.textContent = text === "" ? "(the raw message was not kept for this entry)" : text; });
        });
      }
    }
  };
  var current = function () {
    return state.messages.filter(function (m) { return m.id === state.selected; })[0] || null;
  };
  var renderMessage = function () {
    var m = current();
    view.hidden = m === null;
    placeholder.hidden = m !== null;
    if (m === null) return;
    var path = base + "/" + encodeURIComponent(m.id);
    document.getElementById("subject").textContent = m.subject === "" ? "(no subject)" : m.subject;
    var summary = document.getElementById("summary");
    summary.replaceChildren();
    [["From", m.from], ["To", m.to.join(", ")], ["Date", when(m.createdAt)], ["Id", m.id]].forEach(function (row) {
      summary.append(el("dt", {}, row[0]), el("dd", {}, row[1]));
    });
    var frame = document.getElementById("frame");
    if (frame.getAttribute("data-id") !== m.id) {
      frame.setAttribute("data-id", m.id);
      frame.src = m.html === null ? "about:blank" : path + "/html";
    }
    document.getElementById("no-html").hidden = m.html !== null;
    frame.hidden = m.html === null;
    document.getElementById("text").textContent = m.text === null ? "(this message has no text part)" : m.text;
    var body = document.getElementById("headers");
    body.replaceChildren.apply(body, Object.keys(m.headers).map(function (name) {
      var row = el("tr");
      row.append(el("th", { scope: "row" }, name), el("td", {}, m.headers[name]));
      return row;
    }));
    var files = document.getElementById("attachments");
    files.replaceChildren.apply(files, m.attachments.map(function (a, index) {
      var item = el("li");
      item.append(el("a", { href: path + "/attachments/" + index, download: a.filename }, a.filename));
      item.append(document.createTextNode(" "), el("span", { "class": "muted" }, a.contentType + ", " + size(a.size)));
      return item;
    }));
    document.getElementById("no-attachments").hidden = m.attachments.length > 0;
    document.getElementById("tab-attachments").textContent = "Attachments (" + m.attachments.length + ")";
    document.getElementById("download-raw").setAttribute("href", path + "/raw?download=1");
    showTab(state.tab);
  };
  var open = function (id) {
    state.selected = id;
    history.replaceState(null, "", "#" + encodeURIComponent(id));
    renderList();
    renderMessage();
    document.getElementById("subject").focus();
  };
  var refresh = function () {
    // The server searches the whole outbox; an answer to an older query (or an older poll) is dropped.
    var q = search.value.trim();
    var asked = ++state.asked;
    var url = q === "" ? base : base + "?q=" + encodeURIComponent(q);
    return fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } }).then(function (r) {
      if (asked !== state.asked) return;
      if (r.status === 401) return signedOut();
      if (!r.ok) throw new Error("status " + r.status);
      return r.json().then(function (body) {
        if (asked !== state.asked) return;
        state.query = q;
        var signature = q + "\\n" + body.data.map(function (m) { return m.id; }).join(",");
        if (signature === state.signature) return;
        state.signature = signature;
        state.messages = body.data;
        if (state.selected !== null && current() === null) state.selected = null;
        renderList();
        renderMessage();
      });
    }).catch(function () { status.textContent = "Mailroom did not answer; trying again…"; });
  };
  tabs.forEach(function (t, i) {
    var tab = document.getElementById("tab-" + t);
    tab.addEventListener("click", function () { showTab(t); });
    tab.addEventListener("keydown", function (event) {
      var step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (step === 0) return;
      var next = tabs[(i + step + tabs.length) % tabs.length];
      showTab(next);
      document.getElementById("tab-" + next).focus();
    });
  });
  var typing = null;
  search.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(refresh, 250);
  });
  document.getElementById("search-form").addEventListener("submit", function (event) { event.preventDefault(); clearTimeout(typing); refresh(); });
  document.getElementById("clear").addEventListener("click", function () {
    if (!window.confirm("Delete every message in the dev outbox?")) return;
    fetch(base, { method: "DELETE", credentials: "same-origin", headers: { "x-mailroom-viewer": "1" } }).then(function (r) {
      if (r.status === 401) return signedOut();
      return r.json().then(function (body) {
        state.selected = null;
        state.signature = null;
        return refresh().then(function () { status.textContent = "Cleared " + body.deleted + (body.deleted === 1 ? " message" : " messages") + "."; });
      });
    });
  });
  var hash = decodeURIComponent(window.location.hash.slice(1));
  if (hash !== "") state.selected = hash;
  refresh();
  setInterval(refresh, ${pollMs});
})();`

export interface ViewerPageOptions {
  readonly theme: PageTheme
  /** The nonce of this response's Content-Security-Policy that lets the inline script run. */
  readonly nonce: string
}

const tab = (name: string, label: string, selected = false) =>
  html`<button type="button" role="tab" id="tab-${name}" aria-controls="panel-${name}" aria-selected="${String(selected)}" tabindex="${selected ? "0" : "-1"}">${label}</button>`

export const viewerPage = ({ theme, nonce }: ViewerPageOptions): string => html`<!doctype html>
<html lang="${/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(theme.lang) ? theme.lang : "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Mail viewer · ${theme.productName}</title>
<style>${raw(stylesheet(theme))}</style>
</head>
<body>
<header class="bar">
<h1>Mail viewer <span class="muted">· dev outbox</span></h1>
<form class="search" id="search-form" role="search"><label for="search">Search</label>
<input id="search" type="search" placeholder="subject, address, text" autocomplete="off"></form>
<button type="button" id="clear" class="danger">Clear outbox</button>
<form method="post" action="mail/logout"><button type="submit">Sign out</button></form>
</header>
<div class="layout">
<nav class="list" aria-labelledby="list-title">
<h2 id="list-title">Messages</h2>
<p id="status" role="status" aria-live="polite">Loading…</p>
<ul class="messages" id="messages"></ul>
</nav>
<main id="main">
<p class="empty" id="placeholder">Choose a message to read it.</p>
<section class="message" id="message" hidden aria-labelledby="subject">
<h2 id="subject" tabindex="-1"></h2>
<dl class="summary" id="summary"></dl>
<div role="tablist" aria-label="Parts of the message">
${tab("html", "HTML", true)}${tab("text", "Text")}${tab("headers", "Headers")}${tab("attachments", "Attachments")}${tab("raw", "Raw source")}
</div>
<div role="tabpanel" id="panel-html" aria-labelledby="tab-html">
<iframe id="frame" sandbox="" referrerpolicy="no-referrer" title="The message's HTML, with scripts and remote content blocked"></iframe>
<p id="no-html" class="muted" hidden>This message has no HTML part.</p>
</div>
<div role="tabpanel" id="panel-text" aria-labelledby="tab-text" hidden><pre id="text" tabindex="0"></pre></div>
<div role="tabpanel" id="panel-headers" aria-labelledby="tab-headers" hidden>
<table><caption class="sr-only">Headers as sent</caption><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead><tbody id="headers"></tbody></table>
</div>
<div role="tabpanel" id="panel-attachments" aria-labelledby="tab-attachments" hidden>
<ul id="attachments"></ul><p id="no-attachments" class="muted">No attachments.</p>
</div>
<div role="tabpanel" id="panel-raw" aria-labelledby="tab-raw" hidden>
<p><a id="download-raw" href="#">Download as .eml</a></p>
<pre id="raw" tabindex="0"></pre>
</div>
</section>
</main>
</div>
<script nonce="${nonce}">${raw(script(viewerPollMs))}</script>
</body>
</html>
`.value
