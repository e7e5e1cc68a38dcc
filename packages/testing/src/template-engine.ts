/** The template engine service suites run with: the real `handlebars-email-v2` engine (no fake behind the port), with
 *  the spec's limits, and sharp's image processor for image assets. Each suite's layer makes its own; its MJML worker
 *  starts on the first MJML draft only. */
import { imageProcessorLayer, templateEngineLayer } from "@mailroom/templates"
import { Layer } from "effect"

export const testTemplateEngine = Layer.merge(templateEngineLayer(), imageProcessorLayer)
