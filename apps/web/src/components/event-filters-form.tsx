import { EVENT_TYPES, type EventFilterValues } from "../lib/event-filters";

/** Props of {@link EventFiltersForm}. */
export interface EventFiltersFormProps {
  readonly values: EventFilterValues;
  readonly onChange: (field: keyof EventFilterValues, value: string) => void;
  readonly onSearch: () => void;
  readonly onClear: () => void;
}

const TEXT_FIELDS: ReadonlyArray<{
  field: keyof EventFilterValues;
  label: string;
  placeholder: string;
}> = [
  { field: "fence", label: "Fence", placeholder: "4294967301" },
  { field: "lockId", label: "Lock id", placeholder: "22 characters" },
  { field: "businessKey", label: "Business key", placeholder: "order-1234" },
  { field: "resource", label: "Resource", placeholder: "order:settle" },
  { field: "holder", label: "Holder", placeholder: "clientId or clientId/ownerId" },
];

/** The events search form. */
export function EventFiltersForm({ values, onChange, onSearch, onClear }: EventFiltersFormProps) {
  return (
    <form
      role="search"
      aria-label="Search audit events"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch();
      }}
    >
      <div className="filters">
        {TEXT_FIELDS.map(({ field, label, placeholder }) => (
          <div className="field" key={field}>
            <label htmlFor={`ev-${field}`}>{label}</label>
            <input
              id={`ev-${field}`}
              type="text"
              name={field}
              placeholder={placeholder}
              value={values[field]}
              onChange={(event) => onChange(field, event.target.value)}
            />
          </div>
        ))}
        <div className="field">
          <label htmlFor="ev-type">Type</label>
          <select
            id="ev-type"
            value={values.type}
            onChange={(event) => onChange("type", event.target.value)}
          >
            <option value="">any</option>
            {EVENT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ev-from">From</label>
          <input
            id="ev-from"
            type="datetime-local"
            value={values.from}
            onChange={(event) => onChange("from", event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="ev-to">To</label>
          <input
            id="ev-to"
            type="datetime-local"
            value={values.to}
            onChange={(event) => onChange("to", event.target.value)}
          />
        </div>
      </div>
      <div className="actions" style={{ marginTop: 12 }}>
        <button type="submit" className="button button-primary">
          Search
        </button>
        <button type="button" className="button" onClick={onClear}>
          Clear
        </button>
      </div>
    </form>
  );
}
