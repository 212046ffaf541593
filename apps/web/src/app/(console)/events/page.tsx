"use client";

import { Suspense } from "react";
import { EventFiltersForm } from "../../../components/event-filters-form";
import { EventsTable } from "../../../components/events-table";
import { useEventsSearch } from "../../../hooks/use-events-search";

function EventsSearch() {
  const search = useEventsSearch();
  return (
    <>
      <section className="card">
        <EventFiltersForm
          values={search.form}
          onChange={search.setField}
          onSearch={search.search}
          onClear={search.clear}
        />
      </section>
      <section className="card" aria-labelledby="events-title" aria-busy={search.stale}>
        <div className="page-head" style={{ marginBottom: 8 }}>
          <h2 id="events-title">
            {search.filtered ? "Matching events" : "Latest events"}{" "}
            <span className="faint num">page {search.page}</span>
          </h2>
          <div className="actions">
            <button
              type="button"
              className="button button-small"
              onClick={search.newer}
              disabled={search.page === 1}
            >
              ← Newer
            </button>
            <button
              type="button"
              className="button button-small"
              onClick={search.older}
              disabled={!search.hasOlder}
            >
              Older →
            </button>
          </div>
        </div>
        {search.error ? (
          <div className="notice tone-red" role="alert">
            {search.error}
          </div>
        ) : null}
        {search.loading ? (
          <p className="empty">Loading…</p>
        ) : (
          <EventsTable events={search.events} stale={search.stale} />
        )}
      </section>
    </>
  );
}

/** Audit search by fence, lockId, business key, holder, resource, type and time. */
export default function EventsPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Events</h1>
          <p>
            The audit trail: every grant, release, renewal, force-release, rejection and tier
            change.
          </p>
        </div>
      </div>
      <Suspense>
        <EventsSearch />
      </Suspense>
    </>
  );
}
