/** The library packages under packages/. */
export declare const libraries: ReadonlyArray<string>
/** What `build` builds: the library packages and the command line (`cli`). */
export declare const buildable: ReadonlyArray<string>
/** Builds the named packages' dist/ (all of them by default), `cli` the command line's bundle. */
export declare const build: (names?: ReadonlyArray<string>) => Promise<void>
