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
// `npm test` checks the shipped Prometheus rules with promtool (packages/ops-test).
if (process.env.npm_lifecycle_event === "test") {
  extra.push({ binary: "promtool", paths: ["/usr/bin/promtool"], pkg: "prometheus" });
  // The HTTP/JSON API's client tests run curl + jq and Python (apps/server/test/rest/).
  extra.push(
    { binary: "curl", paths: ["/usr/bin/curl"], pkg: "curl" },
    { binary: "jq", paths: ["/usr/bin/jq"], pkg: "jq" },
    { binary: "python3", paths: ["/usr/bin/python3"], pkg: "python3" },
  );
}

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
    // Only promtool is needed from prometheus: its postinst starts a Prometheus daemon on
    // :9090 where systemd runs, so stop and disable it again (and its node exporter, :9100).
    if (packages.includes("prometheus") && existsSync("/run/systemd/system")) {
      const units = "prometheus prometheus-node-exporter";
      execSync(`for u in ${units}; do systemctl disable --now "$u" 2>/dev/null || true; done`, {
        stdio: "inherit",
        shell: "/bin/sh",
      });
    }
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
