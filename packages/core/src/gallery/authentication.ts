/** The authentication starters: verify email, password reset, magic link, sign-in code. */
import { optional, required, type Starter, url } from "./starter.js"

const ignore = "If you did not ask for this, you can ignore this email; nothing changes until the link is used."

export const authenticationStarters: ReadonlyArray<Starter> = [
  {
    key: "verify-email", name: "Verify email", category: "authentication", version: 1, locale: "en",
    description: "Asks a new user to confirm their email address with one button.",
    subject: "Confirm your email address",
    preheader: "One click to confirm it is you.",
    variables: {
      first_name: optional("Ada"),
      verify_url: url("https://app.example.com/verify?token=abc123"),
      expires_in: required("24 hours"),
    },
    blocks: [
      { type: "heading", text: "Confirm your email address", level: 1 },
      { type: "text", size: "normal", text: "Hi {{first_name}},\n\nPlease confirm that this is your email address. The link works for {{expires_in}}." },
      { type: "button", label: "Confirm email address", href: "{{verify_url}}" },
      { type: "text", size: "small", muted: true, text: "Or paste this link into your browser: {{verify_url}}" },
      { type: "footer", text: ignore },
    ],
  },
  {
    key: "password-reset", name: "Password reset", category: "authentication", version: 1, locale: "en",
    description: "Sends a link to choose a new password, with when it expires.",
    subject: "Reset your password",
    preheader: "Choose a new password with the link inside.",
    variables: {
      first_name: optional("Ada"),
      reset_url: url("https://app.example.com/reset?token=abc123"),
      expires_in: required("1 hour"),
    },
    blocks: [
      { type: "heading", text: "Reset your password", level: 1 },
      { type: "text", size: "normal", text: "Hi {{first_name}},\n\nSomeone asked to reset the password of your account. Choose a new one with the button below; the link works for {{expires_in}}." },
      { type: "button", label: "Choose a new password", href: "{{reset_url}}" },
      { type: "text", size: "small", muted: true, text: "Or paste this link into your browser: {{reset_url}}" },
      { type: "footer", text: `${ignore} Your password stays the same.` },
    ],
  },
  {
    key: "magic-link", name: "Magic link", category: "authentication", version: 1, locale: "en",
    description: "Signs a user in with one link, no password.",
    subject: "Your sign-in link",
    preheader: "Sign in with one click.",
    variables: {
      login_url: url("https://app.example.com/login?token=abc123"),
      expires_in: required("15 minutes"),
      request_location: optional("Berlin, Germany"),
    },
    blocks: [
      { type: "heading", text: "Sign in to {{theme.name}}", level: 1 },
      { type: "text", size: "normal", text: "Use the button below to sign in. It works once, for {{expires_in}}." },
      { type: "button", label: "Sign in", href: "{{login_url}}" },
      { type: "text", size: "small", muted: true, text: "The request came from {{request_location}}. Or paste this link into your browser: {{login_url}}" },
      { type: "footer", text: ignore },
    ],
  },
  {
    key: "sign-in-code", name: "Sign-in code", category: "authentication", version: 1, locale: "en",
    description: "Sends a one-time code to type into the sign-in page.",
    subject: "{{code}} is your sign-in code",
    preheader: "Your one-time code is inside.",
    variables: {
      code: required("482 913"),
      expires_in: required("10 minutes"),
    },
    blocks: [
      { type: "heading", text: "Your sign-in code", level: 1 },
      { type: "text", size: "normal", text: "Enter this code on the sign-in page. It works once, for {{expires_in}}." },
      { type: "heading", text: "{{code}}", level: 1, align: "center" },
      { type: "text", size: "small", muted: true, text: "Never share this code. We will never ask you for it." },
      { type: "footer", text: ignore },
    ],
  },
]
