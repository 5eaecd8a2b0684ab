/** The published `exports` a library package's src/ calls for. */
export declare const expectedExports: (dir: string) => Record<string, unknown>
/** The library packages whose publishConfig.exports differ from their sources; rewritten when `write`. */
export declare const syncExports: (write: boolean) => ReadonlyArray<string>
