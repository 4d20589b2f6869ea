#!/usr/bin/env bash
# Sends every query of examples/partners/queries/ with its variables using curl (bodies built with jq),
# and prints each answer. Keyed-only queries are sent only when a key is given.
#
#   ENERGY_PLAN_KEY=epk_cert_... examples/partners/curl.sh      # the local certification (npm start)
#   ENERGY_PLAN_KEY=epk_live_... examples/partners/curl.sh https://…/graphql   # another endpoint
#   examples/partners/curl.sh                                   # no key: the local playground (5 counted calls)
# Local endpoints follow PORT_BASE as npm start does (certification PORT_BASE+1, playground PORT_BASE+2).
set -euo pipefail
base="${PORT_BASE:-4000}"
if [ -n "${ENERGY_PLAN_KEY:-}" ]; then local_url="http://127.0.0.1:$((base + 1))/graphql"; else local_url="http://127.0.0.1:$((base + 2))/graphql"; fi
url="${1:-${ENERGY_PLAN_URL:-$local_url}}"
dir="$(cd "$(dirname "$0")" && pwd)/queries"
files=("$dir"/*.graphql)
if [ -n "${ENERGY_PLAN_KEY:-}" ]; then files+=("$dir"/keyed-only/*.graphql); fi
headers=(-H 'content-type: application/json')
if [ -n "${ENERGY_PLAN_KEY:-}" ]; then headers+=(-H "x-api-key: ${ENERGY_PLAN_KEY}"); fi
for file in "${files[@]}"; do
  body="$(jq -n --rawfile query "$file" --slurpfile variables "${file%.graphql}.variables.json" '{query: $query, variables: $variables[0]}')"
  echo "# $(basename "$file")"
  # GraphQL errors come with HTTP 200: look at "errors" in the answer, not only at the status.
  # --retry: a 429 (over the key's quota) or 503 is retried after its Retry-After seconds.
  curl -sS --fail-with-body --retry 3 --retry-max-time 60 "$url" "${headers[@]}" --data "$body"
  echo
done
