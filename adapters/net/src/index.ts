// The public surface of @mailroom/net, listed by name.
export { NodeDns, makeNodeDns } from "./dns.js"
export type { NodeDnsOptions } from "./dns.js"
export { UndiciTransport, makeUndiciTransport } from "./transport.js"
export type { UndiciTransportOptions } from "./transport.js"
export { TurnstileChallenge, makeTurnstile, turnstileVerifyUrl } from "./turnstile.js"
export type { TurnstileOptions } from "./turnstile.js"
