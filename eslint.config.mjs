// Lint and format, with the conventions of the Effect monorepo: typescript-eslint's
// syntactic rules (no type information, so a cache-free run stays cheap) and formatting by
// dprint through `@effect/dprint`, configured as Effect configures it. `pnpm test` runs it;
// `pnpm lint --fix` formats.
import * as effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/node_modules", "**/build", "**/dist", "**/.tsbuildinfo", "**/coverage"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  {
    files: ["**/*.ts", "**/*.mts", "**/*.mjs"],
    extends: [tseslint.configs.base, ...effect.configs.dprint],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "object-shorthand": "error",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
