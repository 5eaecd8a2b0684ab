// The WHATWG Encoding API is available in every runtime this package targets (Node, Deno,
// Bun, browsers) but is not part of the ES library typings this package compiles against.
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean })
  decode(input?: Uint8Array, options?: { stream?: boolean }): string
}
declare class TextEncoder {
  encode(input?: string): Uint8Array
}
