import { defineConfig } from "tsup"

export default defineConfig({
  entry: ['src/server.ts'],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: false,
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.json",
})
