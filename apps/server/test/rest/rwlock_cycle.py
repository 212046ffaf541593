#!/usr/bin/env python3
"""A read-write lock cycle over Warden's HTTP/JSON API with Python's standard library only,
as apps/server/README.md ("HTTP/JSON API") describes the /v1/rwlocks routes. Needs
WARDEN_URL, WARDEN_API_KEY and RESOURCE (a registered resource of kind rwlock with writer
preference, the default). Exits 0 when every step answered as documented; run by
apps/server/test/rwlock-rest.test.ts against a real server."""
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
KEY = "config/prices eu ✓"  # any text: it travels in the JSON body or a query parameter


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


def invalid(field):
    return lambda e: e["error"]["code"] == "INVALID_ARGUMENT" and e["error"]["details"]["field"] == field


rw = f"/v1/rwlocks/{RESOURCE}"
query = "?" + urllib.parse.urlencode({"businessKey": KEY})

# 1. Two readers share the key and one fence; a writer's try is refused at once (a normal 200).
a = expect(call("reader-a", "POST", f"{rw}/read", {"businessKey": KEY, "ownerId": "job", "leaseMs": 10000}),
           200, lambda r: r["granted"] and r["mode"] == "read", "read a")
b = expect(call("reader-b", "POST", f"{rw}/try-read", {"businessKey": KEY, "ownerId": "job"}),
           200, lambda r: r["granted"] and r["fence"] == a["fence"] and r["lockId"] != a["lockId"], "try-read b")
expect(call("writer-c", "POST", f"{rw}/try-write", {"businessKey": KEY, "ownerId": "job"}),
       200, lambda r: not r["granted"] and r["reason"] == "read-held" and len(r["holders"]) == 2,
       "refused try-write")
print(f"reader-a holds {a['lockId']}, reader-b {b['lockId']}, both with fence {a['fence']}")

# 2. writer-c waits in a thread; while it waits, new readers are held back (writer preference).
waited = {}
writer = threading.Thread(target=lambda: waited.update(reply=call(
    "writer-c", "POST", f"{rw}/write", {"businessKey": KEY, "ownerId": "job", "waitMs": 20000})))
writer.start()
for _ in range(150):
    status, body = call("reader-a", "GET", f"{rw}{query}")
    if status == 200 and body["waitingWriters"] == 1:
        break
    time.sleep(0.1)
assert body["waitingWriters"] == 1, body
expect(call("reader-d", "POST", f"{rw}/try-read", {"businessKey": KEY, "ownerId": "job"}),
       200, lambda r: not r["granted"] and r["reason"] == "writer-waiting", "reader held back")

# 3. reader-a renews, inspects, releases; reader-b's release, the last read, wakes the writer.
expect(call("reader-a", "POST", f"{rw}/extend",
            {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"], "leaseMs": 15000}),
       200, lambda r: r["grant"]["lockId"] == a["lockId"] and r["grant"]["renewals"] == 1, "extend")
expect(call("reader-a", "GET", f"{rw}{query}"),
       200, lambda r: r["writer"] is None and r["readFence"] == a["fence"]
       and {g["lockId"] for g in r["readers"]} == {a["lockId"], b["lockId"]}, "inspect")
expect(call("reader-a", "POST", f"{rw}/release", {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       200, lambda r: r["released"] and r["mode"] == "read", "release a")
expect(call("reader-b", "POST", f"{rw}/release", {"businessKey": KEY, "lockId": b["lockId"], "tier": b["tier"]}),
       200, lambda r: r["released"], "release b")
writer.join(30)
c = expect(waited["reply"], 200,
           lambda r: r["granted"] and r["mode"] == "write" and int(r["fence"]) > int(a["fence"]), "woken write")
print(f"writer-c was woken and holds {c['lockId']} with fence {c['fence']}")

# 4. reader-a's released grant is gone: NOT_HOLDER.
expect(call("reader-a", "POST", f"{rw}/release", {"businessKey": KEY, "lockId": a["lockId"], "tier": a["tier"]}),
       409, lambda e: e["error"]["code"] == "NOT_HOLDER" and e["error"]["details"]["lockId"] == a["lockId"],
       "release twice")

# 5. A read with a short wait while the writer holds the key: 423 LOCK_TIMEOUT.
expect(call("reader-d", "POST", f"{rw}/read", {"businessKey": KEY, "ownerId": "job", "waitMs": 300}),
       423, lambda e: e["error"]["code"] == "LOCK_TIMEOUT" and e["error"]["details"]["waitMs"] == 300, "timeout")

# 6. Typed errors for bad input, the wrong routes and a bad key; nothing is held by them.
expect(call("reader-d", "POST", f"{rw}/read", {"businessKey": KEY, "ownerId": "job", "lease_ms": 5}),
       400, invalid("lease_ms"), "unknown field")
expect(call("reader-d", "POST", f"{rw}/write", {"businessKey": KEY, "ownerId": "job", "waitMs": -1}),
       400, invalid("waitMs"), "negative wait")
expect(call("reader-d", "POST", f"/v1/locks/{RESOURCE}/try", {"businessKey": KEY, "ownerId": "job"}),
       400, invalid("kind"), "lock route")
expect(call("reader-d", "GET", f"{rw}{query}", api_key="not-a-key"),
       401, lambda e: e["error"]["code"] == "UNAUTHORIZED", "bad key")
expect(call("writer-c", "POST", f"{rw}/release", {"businessKey": KEY, "lockId": c["lockId"], "tier": c["tier"]}),
       200, lambda r: r["released"] and r["mode"] == "write" and r["fence"] == c["fence"], "release c")
expect(call("reader-a", "GET", f"{rw}{query}"), 200,
       lambda r: r["writer"] is None and r["readers"] == [], "all free")
print("python rwlock cycle: ok")
