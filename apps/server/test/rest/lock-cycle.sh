#!/usr/bin/env bash
# A full lock cycle over Warden's HTTP/JSON API with curl and jq, as apps/server/README.md
# ("HTTP/JSON API") shows it. Needs WARDEN_URL, WARDEN_API_KEY and RESOURCE (a registered
# resource). Exits 0 when every step answered as documented; run by
# apps/server/test/rest-clients.test.ts against a real server.
set -euo pipefail
: "${WARDEN_URL:?}" "${WARDEN_API_KEY:?}" "${RESOURCE:?}"

KEY='order/42 café' # any text: it travels in the JSON body, or URL-encoded in a query parameter
QKEY=$(jq -rn --arg k "$KEY" '$k|@uri')
# shellcheck source=curl-helpers.sh
source "$(dirname "$0")/curl-helpers.sh"

# 1. cron-a takes the lock (no wait).
call cron-a POST "/v1/locks/$RESOURCE/acquire" "$(body '{businessKey: $k, ownerId: "job", leaseMs: 10000}')"
expect 200 '.granted == true'
LOCK_A=$(jq -r .lockId <<<"$BODY")
TIER_A=$(jq -r .tier <<<"$BODY")
FENCE_A=$(jq -r .fence <<<"$BODY")
echo "cron-a holds $LOCK_A with fence $FENCE_A on $TIER_A"

# 2. cron-b tries: refused at once, a normal 200 naming the holder.
call cron-b POST "/v1/locks/$RESOURCE/try" "$(body '{businessKey: $k, ownerId: "job"}')"
expect 200 '.granted == false and .holder.clientId == "cron-a"'

# 3. cron-b waits up to 20 s in the background; cron-a's release will wake it.
curl -sS -o "$TMP/waited" -w '%{http_code}' -X POST \
  -H "Authorization: Bearer $WARDEN_API_KEY" -H "x-warden-client-id: cron-b" \
  --data "$(body '{businessKey: $k, ownerId: "job", waitMs: 20000, waitId: "cron-b-wait-1"}')" \
  "$WARDEN_URL/v1/locks/$RESOURCE/acquire" >"$TMP/waited.status" &
WAITER=$!
for _ in $(seq 100); do
  call cron-a GET "/v1/locks/$RESOURCE/waiters?businessKey=$QKEY"
  [ "$(jq '.waiters | length' <<<"$BODY")" = 1 ] && break
  sleep 0.1
done
expect 200 '.waiters[0].clientId == "cron-b" and .waiters[0].position == 0'

# 4. cron-a renews its lease and inspects the key.
call cron-a POST "/v1/locks/$RESOURCE/extend" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\", leaseMs: 15000}")"
expect 200 ".lockId == \"$LOCK_A\" and .renewals == 1 and .ttlMs > 10000"
call cron-a GET "/v1/locks/$RESOURCE?businessKey=$QKEY"
expect 200 ".lease.lockId == \"$LOCK_A\" and .lease.holder.clientId == \"cron-a\""

# 5. cron-a releases; the waiting cron-b is granted with a larger fence.
call cron-a POST "/v1/locks/$RESOURCE/release" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\"}")"
expect 200 '.released == true'
wait "$WAITER"
STATUS=$(cat "$TMP/waited.status")
BODY=$(cat "$TMP/waited")
expect 200 ".granted == true and (.fence | tonumber) > ($FENCE_A | tonumber)"
LOCK_B=$(jq -r .lockId <<<"$BODY")
TIER_B=$(jq -r .tier <<<"$BODY")
echo "cron-b was woken and holds $LOCK_B with fence $(jq -r .fence <<<"$BODY")"

# 6. cron-a's old lockId no longer holds anything: a typed 409 NOT_HOLDER.
call cron-a POST "/v1/locks/$RESOURCE/extend" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_A\", tier: \"$TIER_A\"}")"
expect 409 ".error.code == \"NOT_HOLDER\" and .error.details.lockId == \"$LOCK_A\""
call cron-b POST "/v1/locks/$RESOURCE/release" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_B\", tier: \"$TIER_B\"}")"
expect 200 '.released == true'

# 7. A lease that expires is lost: extend and release answer NOT_HOLDER (reason expired).
call cron-a POST "/v1/locks/$RESOURCE/acquire" "$(body '{businessKey: $k, ownerId: "job", leaseMs: 300}')"
expect 200 '.granted == true'
LOCK_C=$(jq -r .lockId <<<"$BODY")
sleep 1
call cron-a POST "/v1/locks/$RESOURCE/extend" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_C\", tier: \"$TIER_A\"}")"
expect 409 '.error.code == "NOT_HOLDER" and .error.details.reason == "expired"'
call cron-a POST "/v1/locks/$RESOURCE/release" \
  "$(body "{businessKey: \$k, lockId: \"$LOCK_C\", tier: \"$TIER_A\"}")"
expect 409 '.error.code == "NOT_HOLDER"'
call cron-a GET "/v1/locks/$RESOURCE?businessKey=$QKEY"
expect 200 '.lease == null'

# 8. Without an API key: 401 UNAUTHORIZED.
STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' "$WARDEN_URL/v1/locks/$RESOURCE?businessKey=$QKEY")
BODY=$(cat "$TMP/body")
expect 401 '.error.code == "UNAUTHORIZED"'

echo "curl lock cycle: ok"
