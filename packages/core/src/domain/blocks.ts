/** Blocks: the typed JSON list a visual editor edits instead of MJML (docs/templates.md, "Blocks"). A draft stored as
 *  blocks keeps the list and its MJML compiled from it; the engine then checks and compiles that MJML like any other.
 *  Every block reads the brand as `{{theme.*}}`: the compiled MJML names theme colours and fonts, never literals, so
 *  one list renders in any brand. Spec: "Designs (template API)", adopt with asBlocks; "Legacy templates" (500 blocks). */
import { Schema } from "effect"

export const blockLimits = {
  /** Blocks of one design, those inside columns counted too. */
  blocks: 500,
  textLength: 10_000,
  columns: 3,
  /** Links of one footer. */
  footerLinks: 4,
} as const

const Align = Schema.Literal("left", "center", "right")
const text = (what: string) => Schema.String.pipe(
  Schema.minLength(1, { message: () => `${what} must not be empty` }),
  Schema.maxLength(blockLimits.textLength, { message: () => `${what} is at most ${blockLimits.textLength} characters` }),
)
/** An absolute http(s) URL, or a `{{variable}}` that holds one. */
const Href = Schema.String.pipe(Schema.pattern(/^(https?:\/\/\S+|\{\{\s*[A-Za-z_][\w.]*\s*\}\}\S*)$/, {
  message: () => "is an absolute http(s) URL or a {{variable}}",
}), Schema.maxLength(2_048))

export const HeadingBlock = Schema.Struct({
  type: Schema.Literal("heading"),
  text: text("heading text"),
  level: Schema.optionalWith(Schema.Literal(1, 2, 3), { default: () => 1 as const }),
  align: Schema.optional(Align),
})
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  /** Plain text with {{variables}}; a blank line starts a new paragraph. */
  text: text("text"),
  size: Schema.optionalWith(Schema.Literal("small", "normal", "large"), { default: () => "normal" as const }),
  align: Schema.optional(Align),
  muted: Schema.optional(Schema.Boolean),
})
export const ButtonBlock = Schema.Struct({
  type: Schema.Literal("button"),
  label: text("button label"),
  href: Href,
  align: Schema.optional(Align),
})
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  src: Href,
  /** Required; an empty alt marks a decorative image. */
  alt: Schema.String.pipe(Schema.maxLength(500)),
  width: Schema.optional(Schema.Int.pipe(Schema.between(16, 600, { message: () => "image width is 16 to 600 pixels" }))),
  href: Schema.optional(Href),
})
export const DividerBlock = Schema.Struct({ type: Schema.Literal("divider") })
export const SpacerBlock = Schema.Struct({
  type: Schema.Literal("spacer"),
  height: Schema.Int.pipe(Schema.between(4, 120, { message: () => "spacer height is 4 to 120 pixels" })),
})
/** A link of the footer, such as `{ label: "Unsubscribe", href: "{{unsubscribe_url}}" }`. */
export const FooterLink = Schema.Struct({ label: text("link label"), href: Href })
/** The footer: its own text (muted, small), its links on one line, then the brand's footer and compliance contact. */
export const FooterBlock = Schema.Struct({
  type: Schema.Literal("footer"),
  text: Schema.optional(text("footer text")),
  links: Schema.optional(Schema.Array(FooterLink).pipe(
    Schema.maxItems(blockLimits.footerLinks, { message: () => `a footer holds at most ${blockLimits.footerLinks} links` }),
  )),
})

/** What a column holds: any block but columns and footer. */
export const LeafBlock = Schema.Union(HeadingBlock, TextBlock, ButtonBlock, ImageBlock, DividerBlock, SpacerBlock)
export type LeafBlock = typeof LeafBlock.Type

export const ColumnsBlock = Schema.Struct({
  type: Schema.Literal("columns"),
  columns: Schema.Array(Schema.Array(LeafBlock)).pipe(
    Schema.minItems(2, { message: () => "columns holds 2 or 3 columns" }),
    Schema.maxItems(blockLimits.columns, { message: () => "columns holds 2 or 3 columns" }),
  ),
})

export const Block = Schema.Union(HeadingBlock, TextBlock, ButtonBlock, ImageBlock, DividerBlock, SpacerBlock, ColumnsBlock, FooterBlock)
export type Block = typeof Block.Type
export const blockTypes = ["heading", "text", "button", "image", "divider", "spacer", "columns", "footer"] as const

/** How many blocks a list holds, those inside columns counted. */
export const countBlocks = (blocks: ReadonlyArray<Block>): number =>
  blocks.reduce((sum, block) => sum + 1 + (block.type === "columns" ? block.columns.reduce((n, column) => n + column.length, 0) : 0), 0)

export const BlockList = Schema.Array(Block).pipe(
  Schema.filter((blocks) => countBlocks(blocks) <= blockLimits.blocks ||
    `a design holds at most ${blockLimits.blocks} blocks (columns' blocks counted); this one has ${countBlocks(blocks)}`),
)

/** HTML-escapes text, leaving {{variables}} to the engine (which escapes their values). */
const escape = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const fontSize = { small: "13px", normal: "16px", large: "20px" } as const
const headingSize = { 1: "26px", 2: "21px", 3: "18px" } as const

const paragraphs = (value: string) =>
  value.split(/\n\s*\n/).map((part) => escape(part.trim()).replace(/\n/g, "<br />")).join("</p><p style=\"margin:0 0 12px\">")

const leaf = (block: LeafBlock): string => {
  switch (block.type) {
    case "heading":
      return `<mj-text align="${block.align ?? "left"}" font-family="{{theme.fonts.heading}}" font-size="${headingSize[block.level]}" ` +
        `font-weight="700" line-height="1.3" color="{{theme.colors.text}}"><h${block.level} style="margin:0;font-size:inherit;font-weight:700">` +
        `${escape(block.text)}</h${block.level}></mj-text>`
    case "text":
      return `<mj-text align="${block.align ?? "left"}" font-size="${fontSize[block.size]}" line-height="1.6" ` +
        `color="${block.muted === true ? "{{theme.colors.mutedText}}" : "{{theme.colors.text}}"}"><p style="margin:0 0 12px">` +
        `${paragraphs(block.text)}</p></mj-text>`
    case "button":
      return `<mj-button href="${escape(block.href)}" align="${block.align ?? "left"}" background-color="{{theme.colors.primary}}" ` +
        `color="{{theme.colors.primaryText}}" font-size="16px" font-weight="700" border-radius="6px" inner-padding="12px 24px">` +
        `${escape(block.label)}</mj-button>`
    case "image":
      return `<mj-image src="${escape(block.src)}" alt="${escape(block.alt)}"${block.width === undefined ? "" : ` width="${block.width}px"`}` +
        `${block.href === undefined ? "" : ` href="${escape(block.href)}"`} />`
    case "divider":
      return `<mj-divider border-width="1px" border-color="{{theme.colors.mutedText}}" />`
    case "spacer":
      return `<mj-spacer height="${block.height}px" />`
  }
}

/** The brand's header: its logo (an absolute URL with alt text), or its name when it has none. */
const header = `<mj-section padding="24px 0 8px"><mj-column>
      <mj-raw>{{#if theme.logo}}</mj-raw>
      <mj-image src="{{theme.logo.url}}" alt="{{theme.logo.alt}}" width="{{theme.logo.width}}px" align="left" padding="0 24px" />
      <mj-raw>{{else}}</mj-raw>
      <mj-text font-family="{{theme.fonts.heading}}" font-size="20px" font-weight="700" color="{{theme.colors.text}}" padding="0 24px">{{theme.name}}</mj-text>
      <mj-raw>{{/if}}</mj-raw>
    </mj-column></mj-section>`

const footer = (block: typeof FooterBlock.Type) => `<mj-section padding="8px 0 24px"><mj-column>
      ${block.text === undefined ? "" : `<mj-text font-size="13px" line-height="1.5" color="{{theme.colors.mutedText}}"><p style="margin:0">${paragraphs(block.text)}</p></mj-text>`}
      ${block.links === undefined || block.links.length === 0 ? "" : `<mj-text font-size="13px" line-height="1.5" color="{{theme.colors.mutedText}}"><p style="margin:0">${
        block.links.map((link) => `<a href="${escape(link.href)}" style="color:{{theme.colors.mutedText}};text-decoration:underline">${escape(link.label)}</a>`).join(" · ")}</p></mj-text>`}
      <mj-raw>{{#if theme.footer}}</mj-raw>
      <mj-text font-size="13px" line-height="1.5" color="{{theme.colors.mutedText}}">{{theme.footer}}</mj-text>
      <mj-raw>{{/if}}{{#if theme.compliance}}</mj-raw>
      <mj-text font-size="13px" line-height="1.5" color="{{theme.colors.mutedText}}">{{theme.compliance.company}}, {{theme.compliance.address}}</mj-text>
      <mj-raw>{{/if}}</mj-raw>
    </mj-column></mj-section>`

const body = (blocks: ReadonlyArray<Block>): string => {
  const sections: Array<string> = []
  let open: Array<string> = []
  const flush = () => {
    if (open.length > 0) {
      sections.push(`<mj-section background-color="{{theme.colors.surface}}" padding="16px 8px"><mj-column>\n      ${open.join("\n      ")}\n    </mj-column></mj-section>`)
    }
    open = []
  }
  for (const block of blocks) {
    if (block.type === "columns") {
      flush()
      sections.push(`<mj-section background-color="{{theme.colors.surface}}" padding="8px">${block.columns.map((column) =>
        `<mj-column>${column.map(leaf).join("")}</mj-column>`).join("")}</mj-section>`)
    } else if (block.type === "footer") {
      flush()
      sections.push(footer(block))
    } else {
      open.push(leaf(block))
    }
  }
  flush()
  return sections.join("\n    ")
}

/** The MJML of a block list: the brand's header, the blocks on the brand's surface, with the document's language, title
 *  and preview text. `preheader` is the line inboxes show after the subject. */
export const compileBlocks = (blocks: ReadonlyArray<Block>, options: { readonly lang: string; readonly title: string; readonly preheader?: string | undefined }): string =>
  `<mjml lang="${escape(options.lang)}">
  <mj-head>
    <mj-title>${escape(options.title)}</mj-title>
    ${options.preheader === undefined ? "" : `<mj-preview>${escape(options.preheader)}</mj-preview>`}
    <mj-attributes>
      <mj-all font-family="{{theme.fonts.body}}" />
      <mj-text padding="6px 24px" />
      <mj-button padding="12px 24px" />
      <mj-image padding="8px 24px" />
      <mj-divider padding="12px 24px" />
    </mj-attributes>
    <mj-style>a { color: {{theme.colors.link}}; }</mj-style>
  </mj-head>
  <mj-body background-color="{{theme.colors.background}}" width="600px">
    ${header}
    ${body(blocks)}
  </mj-body>
</mjml>
`

const plainLeaf = (block: LeafBlock): ReadonlyArray<string> => {
  switch (block.type) {
    case "heading": return [block.text]
    case "text": return [block.text]
    case "button": return [`${block.label}: ${block.href}`]
    case "image": return block.alt === "" ? [] : [`[${block.alt}]`]
    case "divider": return ["----"]
    case "spacer": return []
  }
}

/** The plain-text part of a block list: its words and links in order, the brand's name on top and its footer below. */
export const blocksText = (blocks: ReadonlyArray<Block>): string =>
  ["{{theme.name}}", ...blocks.flatMap((block) =>
    block.type === "columns" ? block.columns.flatMap((column) => column.flatMap(plainLeaf))
    : block.type === "footer" ? [...(block.text === undefined ? [] : [block.text]),
      ...(block.links ?? []).map((link) => `${link.label}: ${link.href}`),
      "{{#if theme.footer}}{{theme.footer}}{{/if}}",
      "{{#if theme.compliance}}{{theme.compliance.company}}, {{theme.compliance.address}}{{/if}}"]
    : plainLeaf(block))].join("\n\n") + "\n"
