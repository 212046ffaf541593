// Typed ESLint for every TypeScript package; formatting is prettier's job.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/.next/**",
      "**/.turbo/**",
      "**/generated/**",
      "**/next-env.d.ts",
      ".warden/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Stores implement a promise-returning interface; some steps are synchronous.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Read configuration through the package's env.ts or options, not process.env.",
        },
      ],
    },
  },
  {
    files: [
      "**/env.ts",
      "**/testkit/src/**",
      "**/*.config.*",
      "scripts/**",
      "**/scripts/**",
      "**/test/**",
      "**/e2e/**",
      "**/bench/**",
      "**/chaos/**",
    ],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
