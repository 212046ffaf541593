"use client";

import {
  Area,
  AreaChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { RATE_AREAS, type RateRow } from "../../lib/chart-rows";

/** Acquire outcomes per second, stacked. */
export function RateChart({
  rows,
  height = 220,
}: {
  readonly rows: readonly RateRow[];
  readonly height?: number;
}) {
  return (
    <div role="img" aria-label="Acquire rate by outcome, per second">
      <ResponsiveContainer width="100%" height={height}>
        <AreaChart data={[...rows]} margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e5e7eb" vertical={false} />
          <XAxis dataKey="label" minTickGap={40} tick={{ fontSize: 11 }} />
          <YAxis width={44} tick={{ fontSize: 11 }} allowDecimals />
          <Tooltip formatter={(value) => [`${String(value)}/s`]} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {RATE_AREAS.map((area) => (
            <Area
              key={area.key}
              type="stepAfter"
              dataKey={area.key}
              name={area.name}
              stackId="outcome"
              stroke={area.color}
              fill={area.color}
              fillOpacity={0.35}
              isAnimationActive={false}
            />
          ))}
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
