/** The text part of an html body, for mail that has no text of its own: readable plain text, links kept as
 *  "label [url]", wrapped at 78 columns. Spec: sending rule 6. */
import { compile as compileConverter } from "html-to-text"

/** The options are compiled once: compiling them on every call cost more than the conversion. */
export const htmlToText: (html: string) => string = compileConverter({
  wordwrap: 78,
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
  ],
})
