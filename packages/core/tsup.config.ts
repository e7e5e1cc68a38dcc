import { packageBuild } from "../../tsup.preset"

export default packageBuild(["src/index.ts", "src/internal.ts"])
