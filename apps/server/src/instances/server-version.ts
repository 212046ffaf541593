import manifest from "../../package.json" with { type: "json" };

/** The server's package version (bundled into the build, so a deployed copy reports its own). */
export const SERVER_VERSION: string = manifest.version;
