"use client";

import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { PERCENTILE_LINES, type PercentileRow } from "../../lib/chart-rows";
import { formatDuration } from "../../lib/format-time";

/** p50 / p99 / p99.9 over time, in ms (acquire latency or hold time). */
export function PercentileChart({
  rows,
  label,
  height = 220,
}: {
  readonly rows: readonly PercentileRow[];
  readonly label: string;
  readonly height?: number;
}) {
  return (
    <div role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height={height}>
        <LineChart data={[...rows]} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e5e7eb" vertical={false} />
          <XAxis dataKey="label" minTickGap={40} tick={{ fontSize: 11 }} />
          <YAxis
            width={56}
            tick={{ fontSize: 11 }}
            tickFormatter={(value: number) => formatDuration(value)}
          />
          <Tooltip
            formatter={(value) => [typeof value === "number" ? formatDuration(value) : "—"]}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {PERCENTILE_LINES.map((line) => (
            <Line
              key={line.key}
              type="monotone"
              dataKey={line.key}
              name={line.name}
              stroke={line.color}
              dot={false}
              strokeWidth={2}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
