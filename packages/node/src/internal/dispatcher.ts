/**
 * The tag of the undici dispatcher, apart from the HTTP binding so that a module can name
 * the service (to require or capture it) without loading the binding.
 */
import * as Context from "effect/Context"
import type * as Undici from "undici"

/** The undici dispatcher HTTP backends (and OAuth servers) are reached through. */
export class Dispatcher extends Context.Tag("@effect-ahp/node/HttpTransport/Dispatcher")<
  Dispatcher,
  Undici.Dispatcher
>() {}
