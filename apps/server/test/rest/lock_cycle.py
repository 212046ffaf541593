#!/usr/bin/env python3
"""A full lock cycle over Warden's HTTP/JSON API with Python's standard library only, as
apps/server/README.md ("HTTP/JSON API") shows it. Needs WARDEN_URL, WARDEN_API_KEY and
RESOURCE (a registered resource). Exits 0 when every step answered as documented; run by
apps/server/test/rest-clients.test.ts against a real server."""
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

URL = os.environ["WARDEN_URL"]
API_KEY = os.environ["WARDEN_API_KEY"]
RESOURCE = urllib.parse.quote(os.environ["RESOURCE"], safe="")
KEY = "invoice/2026 naïve ✓"  # any text: it travels in the JSON body or a query parameter


def call(client, method, path, body=None, api_key=API_KEY):
    """Returns (HTTP status, parsed JSON reply); errors are replies too."""
    headers = {"x-warden-client-id": client, "content-type": "application/json"}
    if api_key is not None:
        headers["authorization"] = f"Bearer {api_key}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.load(reply)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def expect(reply, status, condition, step):
    got_status, body = reply
    if got_status != status or not condition(body):
        sys.exit(f"{step}: wanted HTTP {status}, got HTTP {got_status}: {json.dumps(body)}")
    return body


lock = f"/v1/locks/{RESOURCE}"
query = "?" + urllib.parse.urlencode({"businessKey": KEY})

# 1. worker-a takes the lock; worker-b's try is refused at once (a normal 200).
a = expect(
    call("worker-a", "POST", f"{lock}/acquire", {"businessKey": KEY, "ownerId": "job", "leaseMs": 10000}),
    200, lambda b: b["granted"], "acquire")
refused = expect(
    call("worker-b", "POST", f"{lock}/try", {"businessKey": KEY, "ownerId": "job"}),
    200, lambda b: not b["granted"], "try")
assert refused["holder"]["clientId"] == "worker-a", refused
print(f"worker-a holds {a['lockId']} with fence {a['fence']} on {a['tier']}")

# 2. worker-b waits in a thread; worker-a's release wakes it.
waited = {}
waiter = threading.Thread(target=lambda: waited.update(reply=call(
    "worker-b", "POST", f"{lock}/acquire",
    {"businessKey": KEY, "ownerId": "job", "waitMs": 20000, "waitId": "worker-b-wait-1"})))
waiter.start()
for _ in range(100):
    status, body = call("worker-a", "GET", f"{lock}/waiters{query}")
    if status == 200 and len(body["waiters"]) == 1:
        break
    time.sleep(0.1)
assert body["waiters"][0]["clientId"] == "worker-b", body

# 3. worker-a renews, inspects, releases.
lease = expect(
    call("worker-a", "POST", f"{lock}/extend",
         {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"], "leaseMs": 15000}),
    200, lambda b: b["lockId"] == a["lockId"] and b["ttlMs"] > 10000, "extend")
expect(call("worker-a", "GET", f"{lock}{query}"),
       200, lambda b: b["lease"]["lockId"] == a["lockId"], "inspect")
expect(call("worker-a", "POST", f"{lock}/release",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       200, lambda b: b["released"], "release")
waiter.join(30)
b = expect(waited["reply"], 200,
           lambda r: r["granted"] and int(r["fence"]) > int(a["fence"]), "woken acquire")
print(f"worker-b was woken and holds {b['lockId']} with fence {b['fence']}")

# 4. worker-a's old grant is gone: NOT_HOLDER, reason other-holder.
expect(call("worker-a", "POST", f"{lock}/release",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       409, lambda e: e["error"]["code"] == "NOT_HOLDER"
       and e["error"]["details"] == {"lockId": a["lockId"], "reason": "other-holder"}, "stale release")

# 5. A wait withdrawn with DELETE /v1/waits/{waitId} answers 409 WAIT_CANCELLED.
cancelled = {}
waiter = threading.Thread(target=lambda: cancelled.update(reply=call(
    "worker-a", "POST", f"{lock}/acquire",
    {"businessKey": KEY, "ownerId": "job", "waitMs": 20000, "waitId": "worker-a-wait-2"})))
waiter.start()
for _ in range(100):
    status, body = call("worker-a", "DELETE", "/v1/waits/worker-a-wait-2")
    if body.get("cancelled"):
        break
    time.sleep(0.1)
waiter.join(30)
expect(cancelled["reply"], 409, lambda e: e["error"]["code"] == "WAIT_CANCELLED"
       and e["error"]["details"]["waitId"] == "worker-a-wait-2", "cancelled wait")
expect(call("worker-b", "POST", f"{lock}/release",
            {"businessKey": KEY, "lockId": b["lockId"], "tier": b["tier"]}),
       200, lambda r: r["released"], "release b")

# 6. A lease that expires is lost: extend answers NOT_HOLDER, reason expired.
c = expect(call("worker-a", "POST", f"{lock}/acquire", {"businessKey": KEY, "ownerId": "job", "leaseMs": 300}),
           200, lambda r: r["granted"], "short acquire")
time.sleep(1)
expect(call("worker-a", "POST", f"{lock}/extend",
            {"businessKey": KEY, "lockId": c["lockId"], "tier": c["tier"]}),
       409, lambda e: e["error"]["code"] == "NOT_HOLDER" and e["error"]["details"]["reason"] == "expired",
       "lost lease")

# 7. Typed errors for bad input and a bad key.
expect(call("worker-a", "POST", f"{lock}/acquire", {"businessKey": KEY, "ownerId": "job", "lease_ms": 5}),
       400, lambda e: e["error"]["code"] == "INVALID_ARGUMENT" and e["error"]["details"]["field"] == "lease_ms",
       "unknown field")
expect(call("worker-a", "GET", f"{lock}{query}", api_key="not-a-key"),
       401, lambda e: e["error"]["code"] == "UNAUTHORIZED", "bad key")
print("python lock cycle: ok")
