/** The billing starters: receipt, invoice, payment failed. Amounts arrive formatted, in the customer's currency. */
import { required, type Starter, url } from "./starter.js"
import type { VariableSpec } from "../domain/design.js"

const items: VariableSpec = {
  type: "array", required: true,
  example: [{ description: "Pro plan, monthly", amount: "$49.00" }, { description: "Extra seats (2)", amount: "$20.00" }],
  items: { description: { type: "string", required: true }, amount: { type: "string", required: true } },
}
const lines = "{{#each items}}{{description}}: {{amount}}\n{{/each}}"

export const billingStarters: ReadonlyArray<Starter> = [
  {
    key: "receipt", name: "Receipt", category: "billing", version: 1, locale: "en",
    description: "Confirms a payment with its lines and total.",
    subject: "Your receipt {{receipt_number}}",
    preheader: "Thanks for your payment of {{total}}.",
    variables: {
      receipt_number: required("R-2041"),
      paid_at: required("29 November 2026"),
      payment_method: required("Visa ending in 4242"),
      items,
      total: required("$69.00"),
      receipt_url: url("https://app.example.com/receipts/R-2041"),
    },
    blocks: [
      { type: "heading", text: "Thanks for your payment", level: 1 },
      { type: "text", size: "normal", text: "Receipt {{receipt_number}}, paid on {{paid_at}} with {{payment_method}}." },
      { type: "divider" },
      { type: "text", size: "normal", text: lines },
      { type: "columns", columns: [[{ type: "heading", text: "Total", level: 2 }], [{ type: "heading", text: "{{total}}", level: 2, align: "right" }]] },
      { type: "button", label: "View the receipt", href: "{{receipt_url}}" },
      { type: "footer", text: "Keep this receipt for your records." },
    ],
  },
  {
    key: "invoice", name: "Invoice", category: "billing", version: 1, locale: "en",
    description: "Sends an invoice with its lines, total and due date, and a link to pay it.",
    subject: "Invoice {{invoice_number}}, due {{due_date}}",
    preheader: "{{total}} due on {{due_date}}.",
    variables: {
      invoice_number: required("INV-1007"),
      due_date: required("15 December 2026"),
      items,
      total: required("$69.00"),
      pay_url: url("https://app.example.com/invoices/INV-1007/pay"),
    },
    blocks: [
      { type: "heading", text: "Invoice {{invoice_number}}", level: 1 },
      { type: "text", size: "normal", text: "Here is your invoice. Please pay it by {{due_date}}." },
      { type: "divider" },
      { type: "text", size: "normal", text: lines },
      { type: "columns", columns: [[{ type: "heading", text: "Amount due", level: 2 }], [{ type: "heading", text: "{{total}}", level: 2, align: "right" }]] },
      { type: "button", label: "Pay the invoice", href: "{{pay_url}}" },
      { type: "footer", text: "Questions about this invoice? Reply to this email." },
    ],
  },
  {
    key: "payment-failed", name: "Payment failed", category: "billing", version: 1, locale: "en",
    description: "Tells a customer a charge failed, why, and how to fix the payment method.",
    subject: "Your payment of {{amount}} did not go through",
    preheader: "Update your payment method to keep your plan.",
    variables: {
      first_name: required("Ada"),
      amount: required("$69.00"),
      reason: required("The card was declined."),
      retry_date: required("2 December 2026"),
      update_url: url("https://app.example.com/billing"),
    },
    blocks: [
      { type: "heading", text: "Your payment did not go through", level: 1 },
      { type: "text", size: "normal", text: "Hi {{first_name}},\n\nWe could not charge {{amount}}: {{reason}}\n\nWe will try again on {{retry_date}}. To keep your plan, please check or update your payment method before then." },
      { type: "button", label: "Update payment method", href: "{{update_url}}" },
      { type: "footer", text: "You receive this email because you are the billing contact of the account." },
    ],
  },
]
