/** Vitest global setup of the starter's tests: without Chromium (and without CI requiring it), says once per run, not
 *  once per browser test file, that the browser tests are skipped and how to enable them. */
import { browserAvailable, browserRequired, skipNotice } from "./chromium.js"

export default function announce(): void {
  if (!browserAvailable && !browserRequired) console.log(skipNotice)
}
