/**
 * Names the area a profiled function belongs to, from its script URL: an npm package
 * (`ioredis`, `@trpc/server`), a Warden source directory (`@warden/core redis`), a Node
 * built-in module (`node:net`), or V8's pseudo frames (`(garbage collector)`, `(program)`).
 */
export function codeArea(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const path = decodeURIComponent(url.replace(/^file:\/\//, ""));
  const packageMatch = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (packageMatch?.[1]) return packageMatch[1];
  const warden = /\/(packages|apps)\/([^/]+)\/src\/(?:([^/]+)\/)?/.exec(path);
  if (warden?.[2]) return `@warden/${warden[2]}${warden[3] ? ` ${warden[3]}` : ""}`;
  if (path.startsWith("node:")) {
    const module = /^node:(?:internal\/)?([^/]+)/.exec(path)?.[1];
    return `node:${module ?? "internal"}`;
  }
  return path;
}
