import { defineConfig } from "tsup"

export default defineConfig({
  entry: ['src/index.ts', 'src/internal.ts'],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { compilerOptions: { composite: false, emitDeclarationOnly: false, customConditions: [] } },
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.json",
})
