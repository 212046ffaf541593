"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatDuration } from "../../lib/format-time";
import type { HistogramRow } from "../../lib/hold-histogram";

/** How long holds lasted: counts per duration bucket (1-2-5 ladder). */
export function HoldHistogramChart({
  rows,
  height = 220,
}: {
  readonly rows: readonly HistogramRow[];
  readonly height?: number;
}) {
  return (
    <div role="img" aria-label="Hold-time distribution">
      <ResponsiveContainer width="100%" height={height}>
        <BarChart data={[...rows]} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e5e7eb" vertical={false} />
          <XAxis
            dataKey="label"
            interval={0}
            angle={-30}
            textAnchor="end"
            height={56}
            tick={{ fontSize: 10 }}
          />
          <YAxis width={40} tick={{ fontSize: 11 }} allowDecimals={false} />
          <Tooltip
            formatter={(value) => [`${String(value)} holds`]}
            labelFormatter={(_, payload) => {
              const row = payload[0]?.payload as HistogramRow | undefined;
              return row
                ? `${formatDuration(row.fromMs)} – ${row.toMs === null ? "…" : formatDuration(row.toMs)}`
                : "";
            }}
          />
          <Bar dataKey="count" name="holds" fill="#2563eb" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
