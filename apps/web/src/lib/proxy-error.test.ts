import { describe, expect, it } from "vitest";
import { proxyErrorBody } from "./proxy-error";

describe("proxyErrorBody", () => {
  it("answers a single call with one tRPC error", () => {
    const body = JSON.parse(proxyErrorBody("/tier.state", new URLSearchParams(), "down")) as {
      error: { message: string; data: { httpStatus: number; path: string } };
    };
    expect(body.error).toMatchObject({
      message: "down",
      data: { httpStatus: 502, path: "tier.state" },
    });
  });

  it("answers a batch with one error per procedure, in order", () => {
    const body = JSON.parse(
      proxyErrorBody(
        "/tier.state%2Cresource.list",
        new URLSearchParams("batch=1&input={}"),
        "down",
      ),
    ) as Array<{ error: { data: { path: string } } }>;
    expect(body.map((item) => item.error.data.path)).toEqual(["tier.state", "resource.list"]);
  });
});
