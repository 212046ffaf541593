"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { resourceHref } from "../lib/links";
import {
  emptyResourceForm,
  errorsFromServer,
  formFromResource,
  parseCreateForm,
  parseUpdateForm,
  type FieldErrors,
  type ResourceFormField,
  type ResourceFormValues,
} from "../lib/resource-form";
import { suggestLease, type LeaseSuggestion, type NoSuggestion } from "../lib/suggested-lease";
import { errorInfo } from "../lib/trpc-error";
import { useTRPC } from "../trpc/react";

/** The register / edit form's view model. */
export interface ResourceFormView {
  readonly mode: "create" | "edit";
  /** False until the edited resource has loaded. */
  readonly ready: boolean;
  readonly loadError: string | null;
  readonly values: ResourceFormValues;
  readonly errors: FieldErrors;
  readonly set: <K extends ResourceFormField>(field: K, value: ResourceFormValues[K]) => void;
  readonly submit: () => void;
  readonly submitting: boolean;
  /** The lease suggested from observed holds, with its data; null while loading or for a new name. */
  readonly suggestion: LeaseSuggestion | NoSuggestion | null;
  readonly applySuggestion: () => void;
}

/**
 * Form state, validation with the server's zod schema (every field's error at once), the
 * create / update mutation, and the suggested lease from `stats.holdTimes`.
 */
export function useResourceForm(mode: "create" | "edit", name?: string): ResourceFormView {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<ResourceFormValues>(emptyResourceForm);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [loaded, setLoaded] = useState(mode === "create");

  const existing = useQuery(
    trpc.resource.get.queryOptions(mode === "edit" && name ? { name } : skipToken),
  );
  useEffect(() => {
    if (existing.data && !loaded) {
      setValues(formFromResource(existing.data));
      setLoaded(true);
    }
  }, [existing.data, loaded]);

  // Observed holds exist only for a registered name; for a new one, once its name is typed.
  const observedName = mode === "edit" ? name : undefined;
  const holdTimes = useQuery(
    trpc.stats.holdTimes.queryOptions(observedName ? { resource: observedName } : skipToken, {
      refetchInterval: 10_000,
    }),
  );

  const onSaved = async (saved: { name: string }) => {
    await queryClient.invalidateQueries(trpc.resource.pathFilter());
    router.push(resourceHref(saved.name));
  };
  const onError = (error: unknown) => {
    const info = errorInfo(error);
    setErrors(errorsFromServer(info.fieldErrors, info.message, info.details));
  };
  const create = useMutation(trpc.resource.create.mutationOptions({ onSuccess: onSaved, onError }));
  const update = useMutation(trpc.resource.update.mutationOptions({ onSuccess: onSaved, onError }));

  const maxLeaseMs = Number(values.maxLeaseMs) || 60_000;
  const suggestion = useMemo(() => {
    const data = holdTimes.data;
    if (!data) return null;
    return suggestLease({ p999HoldMs: data.p999Ms, samples: data.samples }, maxLeaseMs, {
      margin: data.margin,
    });
  }, [holdTimes.data, maxLeaseMs]);

  return {
    mode,
    ready: loaded,
    loadError: existing.error?.message ?? null,
    values,
    errors,
    set: (field, value) => {
      setValues((previous) => ({ ...previous, [field]: value }));
      // An edited field's old message is stale; the others stay until the next submit.
      setErrors((previous) => ({ ...previous, [field]: undefined, form: undefined }));
    },
    submit: () => {
      if (mode === "create") {
        const parsed = parseCreateForm(values);
        setErrors(parsed.ok ? {} : parsed.errors);
        if (parsed.ok) create.mutate(parsed.input);
      } else {
        const parsed = parseUpdateForm(values);
        setErrors(parsed.ok ? {} : parsed.errors);
        if (parsed.ok) update.mutate(parsed.input);
      }
    },
    submitting: create.isPending || update.isPending,
    suggestion,
    applySuggestion: () => {
      if (suggestion?.leaseMs != null) {
        const leaseMs = String(suggestion.leaseMs);
        setValues((previous) => ({ ...previous, defaultLeaseMs: leaseMs }));
        setErrors((previous) => ({ ...previous, defaultLeaseMs: undefined }));
      }
    },
  };
}
