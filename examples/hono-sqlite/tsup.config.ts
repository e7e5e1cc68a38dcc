import { appBuild } from "../../tsup.preset"

export default appBuild(["src/server.ts", "src/migrate.ts"])
