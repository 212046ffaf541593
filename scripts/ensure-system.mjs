// Makes sure the system binaries Warden's tests and `npm start` run (redis-server,
// redis-cli, mariadbd) are present. As root on Debian it installs the missing packages
// with apt-get; elsewhere it says exactly what to install and exits 1.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

const needs = [
  { binary: "redis-server", paths: ["/usr/bin/redis-server"], pkg: "redis-server" },
  { binary: "redis-cli", paths: ["/usr/bin/redis-cli"], pkg: "redis-tools" },
  { binary: "mariadbd", paths: ["/usr/sbin/mariadbd"], pkg: "mariadb-server" },
  { binary: "mariadb-install-db", paths: ["/usr/bin/mariadb-install-db"], pkg: "mariadb-server" },
];

const extra = process.argv.includes("--chromium")
  ? [{ binary: "chromium", paths: ["/usr/bin/chromium"], pkg: "chromium" }]
  : [];

const missing = [...needs, ...extra].filter(
  (n) => !n.paths.some((p) => existsSync(p)) && !onPath(n.binary),
);
const packages = [...new Set(missing.map((m) => m.pkg))];

if (packages.length > 0) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && existsSync("/usr/bin/apt-get")) {
    console.log(`[warden] installing ${packages.join(" ")} with apt-get`);
    execSync("apt-get update -qq", { stdio: "inherit" });
    execSync(`DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(" ")}`, {
      stdio: "inherit",
    });
  } else {
    console.error(
      `[warden] missing ${missing.map((m) => m.binary).join(", ")}: install the Debian packages ` +
        `${packages.join(" ")} (sudo apt-get install ${packages.join(" ")}) and run again.`,
    );
    process.exit(1);
  }
}

function onPath(binary) {
  try {
    execSync(`command -v ${binary}`, { stdio: "ignore", shell: "/bin/sh" });
    return true;
  } catch {
    return false;
  }
}
