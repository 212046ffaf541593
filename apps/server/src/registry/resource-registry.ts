import type { PrismaClient } from "@warden/db";
import { InvalidArgumentError, UnknownResourceError } from "@warden/contract";
import { hasUnsafeCharacters } from "../auth/identifiers.js";
import type { Principal } from "../auth/principal.js";
import { TtlCache } from "../auth/ttl-cache.js";
import { ConflictError } from "../errors/conflict-error.js";
import { ForbiddenError } from "../errors/forbidden-error.js";
import {
  RESOURCE_POLICY_DEFAULTS,
  type ResourceCreateInput,
  type ResourceKind,
  type ResourcePolicy,
} from "../schemas/resource-policy.js";
import { RESOURCE_SELECT, toResourceView, type ResourceView } from "./resource-view.js";

/** Options of {@link ResourceRegistry.list}. */
export interface ResourceListOptions {
  readonly search?: string;
  readonly tenantId?: string;
  readonly includeRetired?: boolean;
  readonly cursor?: string;
  readonly limit?: number;
}

/** Told of every policy change: the resource before (null when created) and after. */
export type PolicyChangeListener = (before: ResourceView | null, after: ResourceView) => void;

/**
 * The resource registry on Prisma. Hot-path reads (`resolve`) are cached for `cacheMs`
 * (default 1 s): a policy edit or a retirement reaches every instance within that time,
 * and at once on the instance that made it.
 */
export class ResourceRegistry {
  private readonly cache: TtlCache<ResourceView | null>;
  /** Resources this instance has read, for audit rows and alerts (names are never reused). */
  private readonly seen = new Map<string, ResourceView>();

  constructor(
    private readonly prisma: PrismaClient,
    cacheMs = 1_000,
  ) {
    this.cache = new TtlCache(cacheMs);
  }

  /** The owning tenant of a resource this instance has seen, for audit rows. */
  ownerOf(name: string): string | null {
    return this.seen.get(name)?.tenantId ?? null;
  }

  /** The expected hold of a resource this instance has seen, in ms (null: no alert). */
  expectedHoldOf(name: string): number | null {
    return this.seen.get(name)?.expectedHoldMs ?? null;
  }

  /**
   * The live resource `name` as `principal` may use it: unknown, retired and other
   * tenants' resources all throw UnknownResourceError, so a tenant learns nothing about
   * names it does not own.
   */
  async resolve(name: string, principal: Principal): Promise<ResourceView> {
    return live(await this.find(name), name, principal);
  }

  /** Like {@link resolve} but also returns retired resources (for reads and audit). */
  async get(name: string, principal: Principal): Promise<ResourceView> {
    return visible(await this.find(name), name, principal);
  }

  /**
   * {@link resolve}'s answer while the cached one is fresh, with no promise: the lock path
   * asks on every call and nearly always hits, and the await chain of a hit was most of the
   * lookup's cost. Undefined when the registry must be read (then call `resolve`).
   *
   * @throws UnknownResourceError - as `resolve` would.
   */
  resolveCached(name: string, principal: Principal): ResourceView | undefined {
    const cached = this.cache.get(name);
    return cached === undefined ? undefined : live(cached, name, principal);
  }

  /** {@link get}'s answer while the cached one is fresh, as {@link resolveCached}. */
  getCached(name: string, principal: Principal): ResourceView | undefined {
    const cached = this.cache.get(name);
    return cached === undefined ? undefined : visible(cached, name, principal);
  }

  /** Resources `principal` may see, by name, paged by the last name of the previous page. */
  async list(principal: Principal, options: ResourceListOptions = {}) {
    const limit = options.limit ?? 100;
    const tenantId = principal.kind === "tenant" ? principal.tenantId : options.tenantId;
    const rows = await this.prisma.resource.findMany({
      where: {
        ...(tenantId === undefined ? {} : { tenantId }),
        ...(options.includeRetired ? {} : { retiredAt: null }),
        name: {
          ...(principal.kind === "tenant" && principal.resourcePrefix
            ? { startsWith: principal.resourcePrefix }
            : {}),
          ...(options.search ? { contains: options.search } : {}),
          ...(options.cursor ? { gt: options.cursor } : {}),
        },
      },
      orderBy: { name: "asc" },
      take: limit + 1,
      select: RESOURCE_SELECT,
    });
    const page = rows.slice(0, limit).map(toResourceView);
    for (const resource of page) this.seen.set(resource.name, resource);
    return { resources: page, cursor: rows.length > limit ? (page.at(-1)?.name ?? null) : null };
  }

  /**
   * Registers a resource; a tenant key registers for its own tenant only. A name another
   * tenant owns is answered like an unknown one would be elsewhere (UnknownResourceError),
   * so a tenant cannot tell "taken by someone else" from "does not exist".
   */
  async create(
    principal: Principal,
    input: ResourceCreateInput,
    onChange?: PolicyChangeListener,
  ): Promise<ResourceView> {
    checkDescription(input.description);
    const tenantId = principal.kind === "tenant" ? principal.tenantId : input.tenantId;
    if (tenantId === undefined) {
      throw new InvalidArgumentError("tenantId", "name the tenant that owns the resource");
    }
    if (
      principal.kind === "tenant" &&
      input.tenantId !== undefined &&
      input.tenantId !== tenantId
    ) {
      throw new ForbiddenError("a tenant key registers resources for its own tenant only");
    }
    if (principal.kind === "tenant" && !input.name.startsWith(principal.resourcePrefix ?? "")) {
      throw new ForbiddenError(
        `this key registers only resources whose names start with "${principal.resourcePrefix ?? ""}"`,
      );
    }
    const tenant = await this.prisma.tenant.findUnique({
      where: { id: tenantId },
      select: { id: true },
    });
    if (!tenant) throw new ConflictError(`tenant "${tenantId}" does not exist`);
    const existing = await this.prisma.resource.findUnique({
      where: { name: input.name },
      select: { name: true, tenantId: true },
    });
    if (existing && principal.kind === "tenant" && existing.tenantId !== principal.tenantId) {
      throw new UnknownResourceError(input.name);
    }
    if (existing) throw new ConflictError(`resource "${input.name}" already exists`);
    checkKindAndPermits(input.kind, input.permits, input.writerPreference);
    checkMutexOnly(input.kind, input);
    const { name, tenantId: _ignored, ...policy } = input;
    try {
      const row = await this.prisma.resource.create({
        data: { ...RESOURCE_POLICY_DEFAULTS, ...policy, name, tenantId },
        select: RESOURCE_SELECT,
      });
      const view = this.remember(toResourceView(row));
      onChange?.(null, view);
      return view;
    } catch (error) {
      // Two creates raced past the check above: the primary key decided.
      if ((error as { code?: string }).code === "P2002") {
        throw new ConflictError(`resource "${name}" already exists`);
      }
      throw error;
    }
  }

  /** Changes a live resource's policy; the merged policy must stay consistent. */
  async update(
    principal: Principal,
    name: string,
    patch: Partial<ResourcePolicy>,
    onChange?: PolicyChangeListener,
  ): Promise<ResourceView> {
    checkDescription(patch.description);
    const current = await this.resolve(name, principal);
    if (patch.kind !== undefined && patch.kind !== current.kind) {
      throw new InvalidArgumentError(
        "kind",
        `is fixed at creation: ${name} is a ${current.kind}; register a new resource for a ${patch.kind}`,
      );
    }
    const merged = { ...current, ...patch };
    if (patch.permits !== undefined || patch.writerPreference !== undefined) {
      checkKindAndPermits(current.kind, merged.permits, merged.writerPreference);
    }
    checkMutexOnly(current.kind, patch);
    if (merged.defaultLeaseMs > merged.maxLeaseMs) {
      throw new ConflictError("defaultLeaseMs must not exceed maxLeaseMs");
    }
    const { kind: _kind, ...data } = patch;
    const row = await this.prisma.resource.update({
      where: { name },
      data,
      select: RESOURCE_SELECT,
    });
    const view = this.remember(toResourceView(row));
    onChange?.(current, view);
    return view;
  }

  /** Retires a resource; `hasLiveLocks` is asked first and a live lock refuses it. */
  async retire(
    principal: Principal,
    name: string,
    hasLiveLocks: (name: string) => Promise<boolean>,
    onChange?: PolicyChangeListener,
  ): Promise<ResourceView> {
    const current = await this.resolve(name, principal);
    if (await hasLiveLocks(name)) {
      throw new ConflictError(`resource "${name}" has live locks; release them first`);
    }
    const row = await this.prisma.resource.update({
      where: { name },
      data: { retiredAt: new Date() },
      select: RESOURCE_SELECT,
    });
    const view = this.remember(toResourceView(row));
    onChange?.(current, view);
    return view;
  }

  private async find(name: string): Promise<ResourceView | null> {
    const view = await this.cache.read(name, async () => {
      const row = await this.prisma.resource.findUnique({
        where: { name },
        select: RESOURCE_SELECT,
      });
      return row ? toResourceView(row) : null;
    });
    if (view) this.seen.set(name, view);
    return view;
  }

  private remember(view: ResourceView): ResourceView {
    this.cache.set(view.name, view);
    this.seen.set(view.name, view);
    return view;
  }
}

// A semaphore names its total; a mutex and a read-write lock have none (docs/decisions/0161);
// only a read-write lock may turn writer preference off (docs/decisions/0166).
function checkKindAndPermits(
  kind: ResourceKind,
  permits: number | null,
  writerPreference: boolean,
): void {
  if (kind === "semaphore" && permits === null) {
    throw new InvalidArgumentError("permits", "a semaphore resource needs permits (1..10000)");
  }
  if (kind !== "semaphore" && permits !== null) {
    throw new InvalidArgumentError(
      "permits",
      "only a semaphore resource has permits; register it with kind semaphore",
    );
  }
  if (kind !== "rwlock" && !writerPreference) {
    throw new InvalidArgumentError(
      "writerPreference",
      "only a read-write lock resource (kind rwlock) has a writer preference to turn off",
    );
  }
}

// Lock-delay (docs/decisions/0175) and liveness-bound release (docs/decisions/0150) act on
// mutex leases only: on a semaphore or a read-write lock the value would be stored and never
// applied, so a value that asks for one is refused (docs/decisions/0185). The defaults (0 and
// null) pass, so forms that always send every field keep working. Waiting for Redis replicas
// (`waitReplicas`) applies to every kind (docs/decisions/0222).
function checkMutexOnly(
  kind: ResourceKind,
  policy: {
    lockDelayMs?: number;
    releaseOnDisconnectMs?: number | null;
    fair?: boolean;
  },
): void {
  // FIFO order is a queue in the mutex and semaphore stores; read-write locks have none
  // (decision 0166: waiting writers are kept from starving by writer preference), so `fair`
  // on one would be stored and never applied.
  if (kind === "rwlock" && policy.fair === true) {
    throw new InvalidArgumentError(
      "fair",
      "first-come-first-served order applies to mutex and semaphore resources; a read-write lock keeps writers from starving by its writer preference",
    );
  }
  if (kind === "mutex") return;
  if (policy.lockDelayMs !== undefined && policy.lockDelayMs > 0) {
    throw new InvalidArgumentError(
      "lockDelayMs",
      `lock-delay applies to mutex resources only; a ${kind} resource takes 0`,
    );
  }
  if (policy.releaseOnDisconnectMs !== undefined && policy.releaseOnDisconnectMs !== null) {
    throw new InvalidArgumentError(
      "releaseOnDisconnectMs",
      `release on disconnect applies to mutex resources only; a ${kind} resource's grants end at their lease`,
    );
  }
}

// A description is shown in the console and written to logs: no control characters (not
// even newlines) and no lone surrogates; refused, never cleaned (issue 18, finding 9).
function checkDescription(description: string | undefined): void {
  if (description !== undefined && hasUnsafeCharacters(description)) {
    throw new InvalidArgumentError("description", "must not contain control characters");
  }
}

/** `resource` if `principal` may use it (not retired), else the typed refusal of `name`. */
function live(resource: ResourceView | null, name: string, principal: Principal): ResourceView {
  if (!resource || resource.retiredAt !== null || !visibleTo(resource, principal)) {
    throw new UnknownResourceError(name);
  }
  return resource;
}

/** `resource` if `principal` may see it (retired or not), else the typed refusal of `name`. */
function visible(resource: ResourceView | null, name: string, principal: Principal): ResourceView {
  if (!resource || !visibleTo(resource, principal)) throw new UnknownResourceError(name);
  return resource;
}

function visibleTo(resource: ResourceView, principal: Principal): boolean {
  return (
    principal.kind === "operator" ||
    (resource.tenantId === principal.tenantId &&
      resource.name.startsWith(principal.resourcePrefix ?? ""))
  );
}
