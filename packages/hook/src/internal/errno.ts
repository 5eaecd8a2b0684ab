/**
 * The `code` of a Node.js system error (`"ENOENT"`, `"EEXIST"`…), or `undefined` for
 * anything that carries none.
 */
export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined
