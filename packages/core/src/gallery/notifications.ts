/** The notification starters: welcome and a generic notification. */
import { required, type Starter, url } from "./starter.js"

export const notificationStarters: ReadonlyArray<Starter> = [
  {
    key: "welcome", name: "Welcome", category: "notifications", version: 1, locale: "en",
    description: "Greets a new user, with the first step to take and where to find help.",
    subject: "Welcome to {{theme.name}}, {{first_name}}",
    preheader: "Here is how to get started.",
    variables: {
      first_name: required("Ada"),
      start_url: url("https://app.example.com/start"),
      help_url: url("https://help.example.com"),
    },
    blocks: [
      { type: "heading", text: "Welcome, {{first_name}}", level: 1 },
      { type: "text", size: "normal", text: "Thanks for joining {{theme.name}}. Your account is ready.\n\nThe best first step: set up your workspace. It takes about two minutes." },
      { type: "button", label: "Get started", href: "{{start_url}}" },
      { type: "divider" },
      {
        type: "columns", columns: [
          [{ type: "heading", text: "Questions?", level: 3 }, { type: "text", size: "small", text: "Our help centre answers most of them: {{help_url}}" }],
          [{ type: "heading", text: "Just reply", level: 3 }, { type: "text", size: "small", text: "This email comes from a real inbox. Reply and a person reads it." }],
        ],
      },
      { type: "footer", text: "You receive this email because you created an account." },
    ],
  },
  {
    key: "notification", name: "Generic notification", category: "notifications", version: 1, locale: "en",
    description: "One title, a message and an optional action: for any event an application reports.",
    subject: "{{title}}",
    preheader: "{{summary}}",
    variables: {
      title: required("Your export is ready"),
      summary: required("The export of your contacts finished."),
      message: required("The file holds 1,204 contacts and stays available for 7 days."),
      action_label: required("Download the export"),
      action_url: url("https://app.example.com/exports/42"),
    },
    blocks: [
      { type: "heading", text: "{{title}}", level: 1 },
      { type: "text", size: "normal", text: "{{message}}" },
      { type: "button", label: "{{action_label}}", href: "{{action_url}}" },
      { type: "footer", text: "You receive this notification because of your account settings." },
    ],
  },
]
