// The parts of @ericcornelissen/bash-parser (which ships no declarations) the shell guard uses.
declare module "@ericcornelissen/bash-parser" {
  const parse: (source: string) => unknown
  export default parse
}
