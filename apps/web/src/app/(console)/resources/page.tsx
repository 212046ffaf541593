"use client";

import Link from "next/link";
import { useState } from "react";
import { ResourcesTable } from "../../../components/resources-table";
import { useResources } from "../../../hooks/use-resources";
import { useSession } from "../../../hooks/use-session";

/** Registered resources, searchable by name. */
export default function ResourcesPage() {
  const [search, setSearch] = useState("");
  const [includeRetired, setIncludeRetired] = useState(false);
  const list = useResources(search, includeRetired);
  const session = useSession();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Resources</h1>
          <p>Lock families and their policy.</p>
        </div>
        {session.canOperate ? (
          <Link href="/resources/new" className="button button-primary">
            Register resource
          </Link>
        ) : null}
      </div>
      <section className="card">
        <div className="actions" style={{ marginBottom: 12 }}>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor="resource-search">Search by name</label>
            <input
              id="resource-search"
              type="search"
              placeholder="order:"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          </div>
          <label className="field field-check">
            <input
              type="checkbox"
              checked={includeRetired}
              onChange={(event) => setIncludeRetired(event.target.checked)}
            />
            show retired
          </label>
        </div>
        {list.error ? (
          <div className="notice tone-red" role="alert">
            {list.error}
          </div>
        ) : null}
        {list.loading ? (
          <p className="empty">Loading…</p>
        ) : (
          <ResourcesTable resources={list.resources} />
        )}
        {list.more ? <p className="faint">Showing the first 500; narrow the search.</p> : null}
      </section>
    </>
  );
}
