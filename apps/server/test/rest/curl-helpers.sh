# Helpers the curl + jq cycles (lock-cycle.sh, rwlock-cycle.sh) source. They need
# WARDEN_URL, WARDEN_API_KEY and KEY (the business key) set.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# call <client-id> <method> <path> [json body]: sets STATUS and BODY
call() {
  STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' -X "$2" \
    -H "Authorization: Bearer $WARDEN_API_KEY" -H "x-warden-client-id: $1" \
    -H 'content-type: application/json' ${4:+--data "$4"} "$WARDEN_URL$3")
  BODY=$(cat "$TMP/body")
}
expect() { # expect <status> <jq condition>
  if [ "$STATUS" != "$1" ] || [ "$(jq -r "$2" <<<"$BODY")" != "true" ]; then
    echo "step failed: wanted HTTP $1 and $2, got HTTP $STATUS: $BODY" >&2
    exit 1
  fi
}
body() { jq -cn --arg k "$KEY" "$1"; } # a JSON body with $k bound to the business key
