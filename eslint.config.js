// Lint rules for the whole repository (`npm run lint`). Bug-finding rules only: formatting is left alone.
// TypeScript sources are linted with type information (typescript-eslint's project service reads each package's
// tsconfig), which is what lets rules such as no-floating-promises see that a call returns a Promise.
import js from "@eslint/js"
import globals from "globals"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: ["**/node_modules/", "**/dist/", "**/build/", "**/coverage/", "**/.data/", "**/.bench-tmp/"],
  },
  js.configs.recommended,
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Promises: an unawaited one loses its error; a Promise where a callback's result is ignored does too.
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/consistent-type-imports": "off",
      // Validators match control characters on purpose.
      "no-control-regex": "off",
      // Framework handlers are async by convention even when they await nothing.
      "@typescript-eslint/require-await": "off",
      // Effect's generators yield* without a `yield` of their own in many small helpers; that is fine.
      "require-yield": "off",
    },
  },
  {
    // Test code reads JSON answers as `any` on purpose: the shape is what the assertions check.
    files: ["**/test/**/*.ts", "packages/testing/src/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // Build and test-runner configuration files belong to no package's tsconfig.
    files: ["**/tsup.config.ts", "tsup.preset.ts", "vitest.workspace.ts"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { parserOptions: { projectService: false } },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
)
