// The public surface of @mailroom/templates, listed by name.
export { makeTemplateEngine, templateEngineLayer } from "./engine.js"
export type { TemplateEngineHandle, TemplateEngineOptions } from "./engine.js"
export { mjmlLimits } from "./mjml-compiler.js"
export type { MjmlOptions } from "./mjml-compiler.js"
export type { RendererOptions } from "./renderer.js"
export { checkMarkup, normalizeUrl, urlProblem } from "./markup-check.js"
export { imageProcessorLayer, sharpImageProcessor } from "./images.js"
