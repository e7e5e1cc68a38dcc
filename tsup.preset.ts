import { defineConfig, type Options } from "tsup"

/** The build every Mailroom package shares: ESM for Node 20, sources maps, declarations for its public entries.
 *  `entry` lists the files a package exports; `dtsEntry` narrows declarations to some of them (a bin needs none). */
export const packageBuild = (entry: ReadonlyArray<string>, dtsEntry: ReadonlyArray<string> = entry) =>
  defineConfig({
    ...shared,
    entry: [...entry],
    dts: { entry: [...dtsEntry], compilerOptions: { composite: false, emitDeclarationOnly: false, customConditions: [] } },
  })

/** The build of a starter app: its server entry points, with no declarations. */
export const appBuild = (entry: ReadonlyArray<string>) => defineConfig({ ...shared, entry: [...entry], dts: false })

const shared: Options = {
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  tsconfig: "tsconfig.json",
}
