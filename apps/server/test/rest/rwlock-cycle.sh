#!/usr/bin/env bash
# A read-write lock cycle over Warden's HTTP/JSON API with curl and jq, as apps/server/README.md
# ("HTTP/JSON API") shows it. Needs WARDEN_URL, WARDEN_API_KEY and RESOURCE (a registered
# resource of kind rwlock). Exits 0 when every step answered as documented; run by
# apps/server/test/rwlock-rest.test.ts against a real server.
set -euo pipefail
: "${WARDEN_URL:?}" "${WARDEN_API_KEY:?}" "${RESOURCE:?}"

KEY='ledger/7 €' # any text: it travels in the JSON body, or URL-encoded in a query parameter
QKEY=$(jq -rn --arg k "$KEY" '$k|@uri')
RW="/v1/rwlocks/$RESOURCE"
# shellcheck source=curl-helpers.sh
source "$(dirname "$0")/curl-helpers.sh"

# 1. Two readers share the key and one fence; a writer's try is refused at once (a 200).
call reader-a POST "$RW/read" "$(body '{businessKey: $k, ownerId: "job", leaseMs: 10000}')"
expect 200 '.granted == true and .mode == "read"'
LOCK_A=$(jq -r .lockId <<<"$BODY")
TIER_A=$(jq -r .tier <<<"$BODY")
FENCE_A=$(jq -r .fence <<<"$BODY")
call reader-b POST "$RW/try-read" "$(body '{businessKey: $k, ownerId: "job"}')"
expect 200 ".granted == true and .fence == \"$FENCE_A\" and .lockId != \"$LOCK_A\""
LOCK_B=$(jq -r .lockId <<<"$BODY")
TIER_B=$(jq -r .tier <<<"$BODY")
call writer-c POST "$RW/try-write" "$(body '{businessKey: $k, ownerId: "job"}')"
expect 200 '.granted == false and .reason == "read-held" and (.holders | length) == 2'
echo "reader-a holds $LOCK_A, reader-b $LOCK_B, both with fence $FENCE_A"

# 2. writer-c waits up to 20 s in the background; the last reader's release will wake it.
curl -sS -o "$TMP/waited" -w '%{http_code}' -X POST \
  -H "Authorization: Bearer $WARDEN_API_KEY" -H "x-warden-client-id: writer-c" \
  --data "$(body '{businessKey: $k, ownerId: "job", waitMs: 20000}')" \
  "$WARDEN_URL$RW/write" >"$TMP/waited.status" &
WAITER=$!
for _ in $(seq 150); do
  call reader-a GET "$RW?businessKey=$QKEY"
  [ "$(jq '.waitingWriters' <<<"$BODY")" = 1 ] && break
  sleep 0.1
done
expect 200 '.waitingWriters == 1'

# 3. reader-a renews and inspects; both readers release, and the writer is granted with a
#    larger fence.
call reader-a POST "$RW/extend" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\", leaseMs: 15000}")"
expect 200 ".grant.lockId == \"$LOCK_A\" and .grant.renewals == 1"
call reader-a GET "$RW?businessKey=$QKEY"
expect 200 ".writer == null and .readFence == \"$FENCE_A\" and (.readers | length) == 2"
call reader-a POST "$RW/release" "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\"}")"
expect 200 '.released == true and .mode == "read"'
call reader-b POST "$RW/release" "$(body "{businessKey: \$k, lockId: \"$LOCK_B\", tier: \"$TIER_B\"}")"
expect 200 '.released == true'
wait "$WAITER"
STATUS=$(cat "$TMP/waited.status")
BODY=$(cat "$TMP/waited")
expect 200 ".granted == true and .mode == \"write\" and (.fence | tonumber) > ($FENCE_A | tonumber)"
LOCK_C=$(jq -r .lockId <<<"$BODY")
TIER_C=$(jq -r .tier <<<"$BODY")
echo "writer-c was woken and holds $LOCK_C with fence $(jq -r .fence <<<"$BODY")"

# 4. reader-a's released grant holds nothing any more: a typed 409 NOT_HOLDER.
call reader-a POST "$RW/release" "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\"}")"
expect 409 ".error.code == \"NOT_HOLDER\" and .error.details.lockId == \"$LOCK_A\""

# 5. The writer releases; the key is free.
call writer-c POST "$RW/release" "$(body "{businessKey: \$k, lockId: \"$LOCK_C\", tier: \"$TIER_C\"}")"
expect 200 '.released == true and .mode == "write"'
call reader-a GET "$RW?businessKey=$QKEY"
expect 200 '.writer == null and .readers == []'

echo "curl rwlock cycle: ok"
