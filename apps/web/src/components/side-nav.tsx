import Link from "next/link";

const ITEMS = [
  { href: "/", label: "Overview" },
  { href: "/resources", label: "Resources" },
  { href: "/events", label: "Events" },
  { href: "/alerts", label: "Alerts" },
  { href: "/tier", label: "Tier" },
  { href: "/instances", label: "Instances" },
] as const;

function active(pathname: string, href: string): boolean {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

/** The console's sections; the alerts item carries the count of critical alerts. */
export function SideNav({
  pathname,
  criticalAlerts,
}: {
  readonly pathname: string;
  readonly criticalAlerts: number;
}) {
  return (
    <nav className="sidenav" aria-label="Sections">
      <ul>
        {ITEMS.map((item) => (
          <li key={item.href}>
            <Link href={item.href} aria-current={active(pathname, item.href) ? "page" : undefined}>
              {item.label}
              {item.href === "/alerts" && criticalAlerts > 0 ? (
                <span className="pill tone-red" aria-label={`${criticalAlerts} critical`}>
                  {criticalAlerts}
                </span>
              ) : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
