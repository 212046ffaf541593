"use client";

import { useRouter } from "next/navigation";
import { ResourceForm } from "../../../../components/resource-form";
import { useResourceForm } from "../../../../hooks/use-resource-form";

/** Register a resource. */
export default function NewResourcePage() {
  const form = useResourceForm("create");
  const router = useRouter();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Register resource</h1>
          <p>Validated with the server&apos;s own schema; every problem is shown on its field.</p>
        </div>
      </div>
      <ResourceForm form={form} onCancel={() => router.push("/resources")} />
    </>
  );
}
