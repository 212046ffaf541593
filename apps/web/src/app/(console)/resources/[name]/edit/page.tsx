"use client";

import { useParams, useRouter } from "next/navigation";
import { ResourceForm } from "../../../../../components/resource-form";
import { useResourceForm } from "../../../../../hooks/use-resource-form";
import { resourceHref } from "../../../../../lib/links";

/** Edit a resource's policy. */
export default function EditResourcePage() {
  const { name: raw } = useParams<{ name: string }>();
  const name = decodeURIComponent(raw);
  const form = useResourceForm("edit", name);
  const router = useRouter();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            Edit <span className="mono">{name}</span>
          </h1>
          <p>Changes apply to new grants; live leases keep the lease they were granted.</p>
        </div>
      </div>
      {form.loadError ? (
        <div className="notice tone-red" role="alert">
          {form.loadError}
        </div>
      ) : null}
      <ResourceForm form={form} onCancel={() => router.push(resourceHref(name))} />
    </>
  );
}
