/** Where the browser tests find Chromium, and what they do without it: skip, with one line per test run (the global
 *  setup `announce.ts` prints it) saying how to enable them, except under CI=true or MAILROOM_REQUIRE_BROWSER=1, where
 *  they fail instead. No other import, so that the global setup loads nothing else. */
import { existsSync } from "node:fs"

export const chromiumPath = process.env.MAILROOM_CHROMIUM ?? "/usr/bin/chromium"
export const browserAvailable = existsSync(chromiumPath)
export const browserRequired = process.env.CI === "true" || process.env.MAILROOM_REQUIRE_BROWSER === "1"

export const skipNotice =
  `Browser tests skipped: no Chromium at ${chromiumPath}; run \`apt-get install chromium\` (or set MAILROOM_CHROMIUM=/path/to/chromium) to enable them.`
