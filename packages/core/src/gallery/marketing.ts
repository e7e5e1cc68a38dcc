/** The marketing starters: newsletter, announcement, double opt-in confirmation. Their footer shows the brand's
 *  compliance contact (the postal address marketing mail needs). */
import { optional, required, type Starter, url } from "./starter.js"

export const marketingStarters: ReadonlyArray<Starter> = [
  {
    key: "newsletter", name: "Newsletter", category: "marketing", version: 2, locale: "en",
    description: "An issue with a lead story, an image and two shorter stories side by side.",
    subject: "{{issue_title}}",
    preheader: "{{intro}}",
    variables: {
      issue_title: required("The November issue"),
      intro: required("What we shipped this month, and what comes next."),
      hero_image: url("https://placehold.co/1200x600.png"),
      hero_alt: required("The new dashboard on a laptop screen"),
      lead_title: required("A faster dashboard"),
      lead_text: required("Every page of the dashboard now loads in under a second."),
      lead_url: url("https://example.com/blog/dashboard"),
      story_one: required("Exports in CSV and JSON"),
      story_two: required("Two-factor sign-in for every plan"),
      unsubscribe_url: url("https://example.com/u/abc"),
    },
    blocks: [
      { type: "heading", text: "{{issue_title}}", level: 1 },
      { type: "text", size: "large", text: "{{intro}}" },
      { type: "image", src: "{{hero_image}}", alt: "{{hero_alt}}", width: 552 },
      { type: "heading", text: "{{lead_title}}", level: 2 },
      { type: "text", size: "normal", text: "{{lead_text}}" },
      { type: "button", label: "Read more", href: "{{lead_url}}" },
      { type: "divider" },
      { type: "columns", columns: [[{ type: "text", size: "normal", text: "{{story_one}}" }], [{ type: "text", size: "normal", text: "{{story_two}}" }]] },
      { type: "footer", text: "You receive this newsletter because you subscribed to it.", links: [{ label: "Unsubscribe", href: "{{unsubscribe_url}}" }] },
    ],
  },
  {
    key: "announcement", name: "Announcement", category: "marketing", version: 2, locale: "en",
    description: "Announces one launch or event, with an image and one call to action.",
    subject: "{{headline}}",
    preheader: "{{summary}}",
    variables: {
      headline: required("Meet the new reports"),
      summary: required("See every campaign's results on one page."),
      image_url: url("https://placehold.co/1200x600.png"),
      image_alt: required("A chart of opens and clicks over a week"),
      body: required("Reports now show opens, clicks and unsubscribes of every campaign side by side, with exports."),
      cta_label: required("Try the reports"),
      cta_url: url("https://app.example.com/reports"),
      unsubscribe_url: url("https://example.com/u/abc"),
    },
    blocks: [
      { type: "image", src: "{{image_url}}", alt: "{{image_alt}}", width: 552 },
      { type: "heading", text: "{{headline}}", level: 1 },
      { type: "text", size: "normal", text: "{{body}}" },
      { type: "button", label: "{{cta_label}}", href: "{{cta_url}}" },
      { type: "footer", text: "Not interested in announcements?", links: [{ label: "Unsubscribe", href: "{{unsubscribe_url}}" }] },
    ],
  },
  {
    key: "double-opt-in", name: "Double opt-in confirmation", category: "marketing", version: 1, locale: "en",
    description: "Asks a new subscriber to confirm the subscription before any marketing mail goes out.",
    subject: "Please confirm your subscription to {{list_name}}",
    preheader: "One click and you are subscribed.",
    variables: {
      list_name: required("The monthly newsletter"),
      confirm_url: url("https://example.com/c/abc123"),
      first_name: optional("Ada"),
    },
    blocks: [
      { type: "heading", text: "Confirm your subscription", level: 1 },
      { type: "text", size: "normal", text: "Hi {{first_name}},\n\nYou asked to receive {{list_name}} from {{theme.name}}. Please confirm, and we will start sending it." },
      { type: "button", label: "Yes, subscribe me", href: "{{confirm_url}}" },
      { type: "text", size: "small", muted: true, text: "If you did not sign up, ignore this email: you will not be subscribed." },
      { type: "footer" },
    ],
  },
]
