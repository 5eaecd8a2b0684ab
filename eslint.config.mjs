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
      // `layer` assigns its testers onto the module-wide `it`, which workers sharing their
      // module graph pass on to later files: test/support/layer.ts has one without that.
      "no-restricted-imports": ["error", {
        paths: [{
          name: "@effect/vitest",
          importNames: ["layer"],
          message: "use layerTests from test/support/layer.ts"
        }]
      }],
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
