#!/usr/bin/env python3
"""A semaphore permit cycle over Warden's HTTP/JSON API with Python's standard library only,
as apps/server/README.md ("HTTP/JSON API") describes the /v1/semaphores routes. Needs
WARDEN_URL, WARDEN_API_KEY and RESOURCE (a registered resource of kind semaphore with 2
permits). Exits 0 when every step answered as documented; run by
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
KEY = "partner-api/eu ✓"  # any text: it travels in the JSON body or a query parameter


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


sem = f"/v1/semaphores/{RESOURCE}"
query = "?" + urllib.parse.urlencode({"businessKey": KEY})

# 1. Two workers take the two permits; a third one's try is refused at once (a normal 200).
a = expect(call("worker-a", "POST", f"{sem}/acquire", {"businessKey": KEY, "ownerId": "job", "leaseMs": 10000}),
           200, lambda b: b["granted"] and b["permits"] == 1, "acquire a")
b = expect(call("worker-b", "POST", f"{sem}/try", {"businessKey": KEY, "ownerId": "job"}),
           200, lambda r: r["granted"] and r["inUse"] == 2 and int(r["fence"]) > int(a["fence"]), "try b")
expect(call("worker-c", "POST", f"{sem}/try", {"businessKey": KEY, "ownerId": "job"}),
       200, lambda r: not r["granted"] and r["inUse"] == 2 and r["totalPermits"] == 2, "refused try")
print(f"worker-a holds {a['lockId']} (fence {a['fence']}), worker-b {b['lockId']} (fence {b['fence']})")

# 2. worker-c waits in a thread; worker-a's release wakes it.
waited = {}
waiter = threading.Thread(target=lambda: waited.update(reply=call(
    "worker-c", "POST", f"{sem}/acquire", {"businessKey": KEY, "ownerId": "job", "waitMs": 20000})))
waiter.start()
for _ in range(100):
    status, body = call("worker-a", "GET", f"{sem}/waiters{query}")
    if status == 200 and len(body["waiters"]) == 1:
        break
    time.sleep(0.1)
assert body["waiters"][0]["clientId"] == "worker-c", body

# 3. worker-a renews, inspects, releases.
expect(call("worker-a", "POST", f"{sem}/extend",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"], "leaseMs": 15000}),
       200, lambda r: r["permit"]["lockId"] == a["lockId"] and r["permit"]["renewals"] == 1, "extend")
expect(call("worker-a", "GET", f"{sem}{query}"),
       200, lambda r: r["inUse"] == 2 and {p["lockId"] for p in r["holders"]} == {a["lockId"], b["lockId"]},
       "inspect")
expect(call("worker-a", "POST", f"{sem}/release",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       200, lambda r: r["released"] and r["permit"]["lockId"] == a["lockId"], "release a")
waiter.join(30)
c = expect(waited["reply"], 200,
           lambda r: r["granted"] and int(r["fence"]) > int(b["fence"]), "woken acquire")
print(f"worker-c was woken and holds {c['lockId']} with fence {c['fence']}")

# 4. worker-a's released grant is gone: NOT_HOLDER.
expect(call("worker-a", "POST", f"{sem}/extend",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       409, lambda e: e["error"]["code"] == "NOT_HOLDER" and e["error"]["details"]["lockId"] == a["lockId"],
       "stale extend")

# 5. A full key with a short wait: 423 LOCK_TIMEOUT.
expect(call("worker-d", "POST", f"{sem}/acquire", {"businessKey": KEY, "ownerId": "job", "waitMs": 300}),
       423, lambda e: e["error"]["code"] == "LOCK_TIMEOUT", "timeout")

# 6. Typed errors for bad input and a bad key; nothing is held by them.
expect(call("worker-d", "POST", f"{sem}/acquire", {"businessKey": KEY, "ownerId": "job", "permits": 3}),
       400, lambda e: e["error"]["code"] == "INVALID_ARGUMENT" and e["error"]["details"]["field"] == "permits",
       "too many permits")
expect(call("worker-d", "POST", f"{sem}/acquire", {"businessKey": KEY, "ownerId": "job", "lease_ms": 5}),
       400, lambda e: e["error"]["code"] == "INVALID_ARGUMENT" and e["error"]["details"]["field"] == "lease_ms",
       "unknown field")
expect(call("worker-d", "GET", f"{sem}{query}", api_key="not-a-key"),
       401, lambda e: e["error"]["code"] == "UNAUTHORIZED", "bad key")
for grant in (b, c):
    expect(call("worker", "POST", f"{sem}/release",
                {"businessKey": KEY, "lockId": grant["lockId"], "tier": grant["tier"]}),
           200, lambda r: r["released"], "release")
expect(call("worker-a", "GET", f"{sem}{query}"), 200, lambda r: r["inUse"] == 0, "all free")
print("python semaphore cycle: ok")
