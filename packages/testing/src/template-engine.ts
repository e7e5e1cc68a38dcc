/** The template engine service suites run with: the real `handlebars-email-v2` engine (no fake behind the port), with
 *  the spec's limits. Each suite's layer makes its own; its MJML worker starts on the first MJML draft only. */
import { templateEngineLayer } from "@mailroom/templates"

export const testTemplateEngine = templateEngineLayer()
