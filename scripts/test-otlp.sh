#!/usr/bin/env bash
# Tests the OTLP receivers with real OpenTelemetry clients on several "hosts": one network
# namespace each (ip netns + a veth pair, addresses 10.231.N.0/24 that never leave this
# machine), sending to one `highrise record --otlp-grpc/--otlp-http` beyond loopback with a
# token:
#   host-1  Python SDK, OTLP/gRPC exporter            (examples/otlp-python/shop.py)
#   host-2  Python SDK, OTLP/HTTP protobuf exporter, gzip
#   host-3  Python SDK, gRPC with gzip, its clock 40 s behind (faketime): placed only if skew
#           is corrected
#   host-4  Node SDK, OTLP/HTTP protobuf exporter     (examples/otlp-node/shop.js)
#   host-7  Node SDK, OTLP/HTTP JSON exporter (exporter-trace-otlp-http's default)
#   host-5  Python SDK, HTTP, its clock 40 s ahead    (faketime): on time only if corrected
#   host-6  an auto-instrumented Flask service (opentelemetry-instrument, no tracing code:
#           examples/otlp-python/inventory.py) that host-1's shop calls over a veth of their
#           own, the trace context in `traceparent`: one call between services per reserve
#   host-8  OTLP profiles over gRPC (grpcio, gzip): a program that samples itself every 10 ms
#           and sends its stacks as the eBPF profiler does (examples/otlp-python/profiler.py)
#   host-9  the same over HTTP with JSON bodies, as protobuf's JSON mapping writes them
#   host-1  again, without the token: refused, nothing of it recorded
# Then `highrise report --json` on each recording must show exactly the spans each client says
# it made, nested as made, and links.json every call between services (check_landscape.py);
# each profiled program a sampled city whose busiest functions are the ones it sampled most, at
# their share (check_profiles.py).
# Installs what it needs: the Python SDK and exporters (a venv under $HOME/.cache/highrise), the
# Node SDK (npm, same cache), faketime and iproute2 from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/highrise/target}"
cache="$HOME/.cache/highrise"
highrise="${HIGHRISE_BIN:-$CARGO_TARGET_DIR/debug/highrise}"
[ -x "$highrise" ] || cargo build -p highrise-cli --locked

apt_install() {
    apt-get update -qq && apt-get install -y -qq "$@"
}
command -v ip >/dev/null 2>&1 || apt_install iproute2
command -v faketime >/dev/null 2>&1 || apt_install faketime
command -v node >/dev/null 2>&1 || apt_install nodejs npm

venv="$cache/otel-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/python" -c 'import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.grpc, opentelemetry.exporter.otlp.proto.http, opentelemetry.instrumentation.flask, flask' 2>/dev/null \
    || ! "$venv/bin/python" -m pip check >/dev/null 2>&1; then
    # One resolution for all, so the SDK and the instrumentation agree on versions.
    "$venv/bin/python" -m pip install -q --disable-pip-version-check opentelemetry-sdk \
        opentelemetry-exporter-otlp-proto-grpc opentelemetry-exporter-otlp-proto-http \
        opentelemetry-distro opentelemetry-instrumentation-flask flask
fi
node_dir="$cache/otel-node"
if [ ! -d "$node_dir/node_modules/@opentelemetry/exporter-trace-otlp-http" ]; then
    mkdir -p "$node_dir"
    (cd "$node_dir" && npm install --silent --no-audit --no-fund @opentelemetry/api \
        @opentelemetry/sdk-trace-node @opentelemetry/sdk-trace-base @opentelemetry/resources \
        @opentelemetry/exporter-trace-otlp-proto @opentelemetry/exporter-trace-otlp-grpc \
        @opentelemetry/exporter-trace-otlp-http)
fi

work="$(mktemp -d)"
tag="hro$$"
hosts=(1 2 3 4 5 6 7 8 9)
cleanup() {
    for n in "${hosts[@]}"; do
        ip netns delete "$tag-$n" 2>/dev/null || true
        ip link delete "${tag}v$n" 2>/dev/null || true
    done
    ip link delete "${tag}x1" 2>/dev/null || true
    [ -n "${recorder:-}" ] && kill "$recorder" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
for n in "${hosts[@]}"; do
    ns="$tag-$n"
    ip netns add "$ns"
    ip link add "${tag}v$n" type veth peer name "${tag}p$n"
    ip link set "${tag}p$n" netns "$ns"
    ip addr add "10.231.$n.1/24" dev "${tag}v$n"
    ip link set "${tag}v$n" up
    ip netns exec "$ns" ip addr add "10.231.$n.2/24" dev "${tag}p$n"
    ip netns exec "$ns" ip link set "${tag}p$n" up
    ip netns exec "$ns" ip link set lo up
done
# host-1 ↔ host-6 directly (10.232.0.1 ↔ 10.232.0.2): the shop's calls to the inventory.
ip link add "${tag}x1" type veth peer name "${tag}x6"
ip link set "${tag}x1" netns "$tag-1"
ip link set "${tag}x6" netns "$tag-6"
ip netns exec "$tag-1" ip addr add 10.232.0.1/30 dev "${tag}x1"
ip netns exec "$tag-6" ip addr add 10.232.0.2/30 dev "${tag}x6"
ip netns exec "$tag-1" ip link set "${tag}x1" up
ip netns exec "$tag-6" ip link set "${tag}x6" up

token="otlp-test-$RANDOM$RANDOM"
grpc_port=$((20000 + RANDOM % 20000))
http_port=$((grpc_port + 1))
mkdir -p "$work/rec"
HIGHRISE_TOKEN="$token" "$highrise" record --out "$work/rec" --listen 127.0.0.1:0 \
    --otlp-grpc "0.0.0.0:$grpc_port" --otlp-http "0.0.0.0:$http_port" \
    --otlp-delay-ms 3000 --duration-s 16 >"$work/record.log" 2>&1 &
recorder=$!
for _ in $(seq 100); do
    grep -q "taking OpenTelemetry" "$work/record.log" 2>/dev/null && break
    kill -0 "$recorder" 2>/dev/null || break
    sleep 0.1
done
if ! grep -q "taking OpenTelemetry" "$work/record.log"; then
    echo "test-otlp: the recorder did not start:" >&2
    cat "$work/record.log" >&2
    exit 1
fi

python="$venv/bin/python"
# Every client is bounded in time, so a stuck one fails the test instead of hanging it.
bounded=(timeout 90)
shop="$root/examples/otlp-python/shop.py"
common=(--seconds 5 --token "$token")
# The inventory: configured only through OpenTelemetry's environment variables.
OTEL_SERVICE_NAME=inventory OTEL_TRACES_EXPORTER=otlp OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none \
OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT="http://10.231.6.1:$http_port" \
OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20$token" OTEL_BSP_SCHEDULE_DELAY=200 \
OTEL_RESOURCE_ATTRIBUTES=host.name=host-6 \
    timeout 14 ip netns exec "$tag-6" "$venv/bin/opentelemetry-instrument" "$python" \
    "$root/examples/otlp-python/inventory.py" --host 10.232.0.2 --port 8081 >"$work/inventory.log" 2>&1 &
inventory=$!
for _ in $(seq 100); do
    ip netns exec "$tag-1" "$python" -c 'import urllib.request; urllib.request.urlopen("http://10.232.0.2:8081/count", timeout=1)' \
        2>/dev/null && break
    sleep 0.1
done
"${bounded[@]}" ip netns exec "$tag-1" "$python" "$shop" --protocol grpc --endpoint "http://10.231.1.1:$grpc_port" \
    --service checkout --host host-1 --inventory http://10.232.0.2:8081 "${common[@]}" >"$work/made-checkout.json" &
"${bounded[@]}" ip netns exec "$tag-2" "$python" "$shop" --protocol http --endpoint "http://10.231.2.1:$http_port" \
    --service cart --host host-2 --compression gzip "${common[@]}" >"$work/made-cart.json" &
# Skewed clocks (libfaketime). Under it the SDK's batch processor exports only at shutdown, so
# these run 1.5 s: everything arrives within the 3 s delay, if the skew is corrected.
"${bounded[@]}" ip netns exec "$tag-3" faketime -f "-40s" "$python" "$shop" --protocol grpc \
    --endpoint "http://10.231.3.1:$grpc_port" --service payments --host host-3 --seconds 1.5 --compression gzip \
    --token "$token" >"$work/made-payments.json" &
"${bounded[@]}" ip netns exec "$tag-5" faketime -f "+40s" "$python" "$shop" --protocol http \
    --endpoint "http://10.231.5.1:$http_port" --service ledger --host host-5 --seconds 1.5 \
    --token "$token" >"$work/made-ledger.json" &
NODE_PATH="$node_dir/node_modules" "${bounded[@]}" ip netns exec "$tag-4" node "$root/examples/otlp-node/shop.js" \
    --protocol http --endpoint "http://10.231.4.1:$http_port" --service catalog --host host-4 \
    "${common[@]}" >"$work/made-catalog.json" &
NODE_PATH="$node_dir/node_modules" "${bounded[@]}" ip netns exec "$tag-7" node "$root/examples/otlp-node/shop.js" \
    --protocol json --endpoint "http://10.231.7.1:$http_port" --service search --host host-7 \
    "${common[@]}" >"$work/made-search.json" &
# OTLP profiles: a program sampling itself, over gRPC and over HTTP/JSON.
profiler="$root/examples/otlp-python/profiler.py"
"${bounded[@]}" ip netns exec "$tag-8" "$python" "$profiler" --protocol grpc \
    --endpoint "http://10.231.8.1:$grpc_port" --service profiled-grpc --host host-8 \
    "${common[@]}" >"$work/sampled-grpc.json" &
"${bounded[@]}" ip netns exec "$tag-9" "$python" "$profiler" --protocol json --compression gzip \
    --endpoint "http://10.231.9.1:$http_port" --service profiled-json --host host-9 \
    "${common[@]}" >"$work/sampled-json.json" &
# No token from another host: refused (the SDK logs the failure and goes on).
"${bounded[@]}" ip netns exec "$tag-1" "$python" "$shop" --protocol http \
    --endpoint "http://10.231.1.1:$http_port" --service intruder --host host-1 --seconds 2 >/dev/null 2>"$work/intruder.log" &
wait $(jobs -p | grep -v -e "^$recorder\$" -e "^$inventory\$") 2>/dev/null || true
# The inventory served its last request; stopping it (SIGTERM) flushes its spans.
kill "$inventory" 2>/dev/null || true
wait "$inventory" 2>/dev/null || true
wait "$recorder"
recorder=""
cat "$work/record.log"
"$python" "$root/scripts/otlp/check_landscape.py" --highrise "$highrise" --recordings "$work/rec" \
    --record-log "$work/record.log" "$work"/made-*.json
"$python" "$root/scripts/otlp/check_profiles.py" --highrise "$highrise" --recordings "$work/rec" \
    --record-log "$work/record.log" "$work"/sampled-*.json
