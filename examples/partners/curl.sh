#!/usr/bin/env bash
# Sends every query of examples/partners/queries/ with its variables using curl (bodies built with jq),
# and prints each answer. Keyed-only queries are sent only when a key is given.
#
#   examples/partners/curl.sh                                   # the local playground (npm start)
#   ENERGY_PLAN_KEY=epk_... examples/partners/curl.sh http://127.0.0.1:4001/graphql   # certification
set -euo pipefail
url="${1:-${ENERGY_PLAN_URL:-http://127.0.0.1:4002/graphql}}"
dir="$(cd "$(dirname "$0")" && pwd)/queries"
files=("$dir"/*.graphql)
if [ -n "${ENERGY_PLAN_KEY:-}" ]; then files+=("$dir"/keyed-only/*.graphql); fi
headers=(-H 'content-type: application/json')
if [ -n "${ENERGY_PLAN_KEY:-}" ]; then headers+=(-H "x-api-key: ${ENERGY_PLAN_KEY}"); fi
for file in "${files[@]}"; do
  body="$(jq -n --rawfile query "$file" --slurpfile variables "${file%.graphql}.variables.json" '{query: $query, variables: $variables[0]}')"
  echo "# $(basename "$file")"
  # GraphQL errors come with HTTP 200: look at "errors" in the answer, not only at the status.
  curl -sS --fail-with-body "$url" "${headers[@]}" --data "$body"
  echo
done
