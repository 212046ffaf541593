import { parseArgs } from "node:util";
import { asVariantName, VARIANTS, type VariantName } from "../plan/variants.js";

/** What the command line asked for. */
export interface BenchArgs {
  readonly quick: boolean;
  /** Where to write the JSON; relative to where `pnpm bench` was run. Null: the default. */
  readonly out: string | null;
  /** Write V8 CPU profiles of the server and the load generator and summarize them. */
  readonly profile: boolean;
  /** Only these variants; null: all. */
  readonly variants: readonly VariantName[] | null;
  readonly help: boolean;
}

/** Usage text for `--help` and for bad arguments. */
export const USAGE = `usage: pnpm bench [--quick] [--out FILE] [--variants a,b,…] [--profile]

  --quick           the CI subset (≤ 2 minutes): every variant once, shorter rounds,
                    a smaller memory sample
  --out FILE        write the JSON results here (default .warden/bench/latest.json
                    at the repository root)
  --variants LIST   only these of ${VARIANTS.join(", ")}
  --profile         CPU-profile the server and the load generator in the measured
                    slots (and the server over the memory phase's renewals) and
                    print where their CPU went

  WARDEN_BENCH_REDIS_URL / WARDEN_BENCH_MYSQL_URL: use these servers instead of
  starting private ones (Redis logical dbs 0-3 are used, 2 and 3 are flushed).`;

/**
 * Parses the bench's arguments. pnpm forwards a literal `--` in some versions
 * (`pnpm bench -- --quick`), so bare `--` tokens are dropped first.
 * @throws Error naming the bad argument
 */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== "--"),
    options: {
      quick: { type: "boolean", default: false },
      out: { type: "string" },
      profile: { type: "boolean", default: false },
      variants: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  let variants: VariantName[] | null = null;
  if (values.variants !== undefined) {
    variants = values.variants.split(",").map((raw) => {
      const name = asVariantName(raw.trim());
      if (name === null) {
        throw new Error(`--variants: unknown variant "${raw}" (one of ${VARIANTS.join(", ")})`);
      }
      return name;
    });
  }
  return {
    quick: values.quick,
    out: values.out ?? null,
    profile: values.profile,
    variants,
    help: values.help,
  };
}
