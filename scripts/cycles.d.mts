/** The repository's root folder. */
export declare const root: string
/** The product's source files (absolute paths): apps/ahp/src and every package's src. */
export declare const productFiles: (base?: string) => Array<string>
/** Each file's imports of other files among `files`, type-only and dynamic ones included. */
export declare const importGraph: (files: ReadonlyArray<string>, base?: string) => Map<string, Array<string>>
/** The import cycles of a graph: groups of files that import each other, and files that import themselves. */
export declare const findCycles: (graph: ReadonlyMap<string, ReadonlyArray<string>>) => Array<Array<string>>
