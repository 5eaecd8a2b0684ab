/** The library packages under packages/. */
export declare const libraries: ReadonlyArray<string>
/** Builds every package's dist/ and the command line's bundle. */
export declare const build: () => Promise<void>
