#!/usr/bin/env bash
# Our WebRTC publisher -> Janus 1.1.2 VideoRoom -> an aiortc subscriber (issue 13's acceptance).
# Runs inside the private network namespace of scripts/netns-run.sh (janus-test.sh calls it so):
# a throw-away Janus with one room, our `simulcast publish` (1280x720 simulcast, Opus) joining it
# over ICE + DTLS-SRTP, and Tests/Interop/janus_viewer.py subscribing to our feed through the
# room, asking for substreams and temporal layers on a schedule. Two runs: three layers
# (substreams 0, 1, 2 at 320x180, 640x360, 1280x720; temporal 0 then 2) and --max-layer 2
# (substreams 0 and 1 at 320x180 and 1280x720). A third run (issue 16) publishes with
# --e2ee-key: every frame SFrame-encrypted (RFC 9605) before it reaches Janus, and the viewer,
# holding no key, must receive Janus's forwarded frames and draw nothing like the picture from them,
# while a referee holding the key opens them (--keyless --check-key: proof Janus relayed ciphertext).
# Results: out/janus-videoroom-{three,two,e2ee}.json. Exit 0 when the first two runs decode every
# asked resolution with zero decode errors and the third passes those checks.
#
#   unshare -n scripts/netns-run.sh scripts/janus-videoroom-acceptance.sh [BINARY]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
binary="${1:-.build/release/simulcast}"
python=.venv-interop/bin/python
mkdir -p out

run() { # NAME MAX_LAYER SCHEDULE TEMPORAL RESOLUTIONS [E2EE_KEY]
    local name=$1 max_layer=$2 schedule=$3 temporal=$4 resolutions=$5 key=${6:-} info url dir tmp publisher_pid id status=0
    info="$(scripts/janus-harness.sh start --videoroom)"
    url="$(printf '%s' "$info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["http"])')"
    dir="$(printf '%s' "$info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["dir"])')"
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/janus-videoroom.XXXXXX")"
    "$binary" publish --janus "$url" --bind 10.99.0.1 --max-layer "$max_layer" --seconds 40 ${key:+--e2ee-key "$key"} \
        >"$tmp/publish.out" 2>"$tmp/publish.err" &
    publisher_pid=$!
    for _ in $(seq 150); do [ -s "$tmp/publish.out" ] && break; kill -0 "$publisher_pid" 2>/dev/null || break; sleep 0.1; done
    id="$(head -n 1 "$tmp/publish.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["publisher_id"])' 2>/dev/null || true)"
    if [ -z "$id" ]; then
        echo "janus-videoroom: $name: the publisher did not join: $(cat "$tmp/publish.err")" >&2
        status=1
    elif [ -n "$key" ]; then
        echo "janus-videoroom: $name: publisher $(head -n 1 "$tmp/publish.out")" >&2
        "$python" Tests/Interop/janus_viewer.py --url "$url" --videoroom 1234 --feed "$id" --seconds 6 --setup-timeout 15 \
            --schedule "$schedule" --keyless --check-key "$key" --ice-address 10.99.0.1 >"out/janus-videoroom-$name.json" || status=1
        cat "out/janus-videoroom-$name.json"
    else
        echo "janus-videoroom: $name: publisher $(head -n 1 "$tmp/publish.out")" >&2
        "$python" Tests/Interop/janus_viewer.py --url "$url" --videoroom 1234 --feed "$id" --seconds 12 --setup-timeout 15 \
            --schedule "$schedule" ${temporal:+--temporal-schedule "$temporal"} --resolutions "$resolutions" \
            --require-switches --ice-address 10.99.0.1 >"out/janus-videoroom-$name.json" || status=1
        python3 - "out/janus-videoroom-$name.json" "$resolutions" <<'PY' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
frames = r.get("frames_by_resolution", {})
wanted = sys.argv[2].split(",")
problems = [f"no frames at {w}" for w in wanted if frames.get(w, 0) == 0]
if r.get("decode_errors", 1) != 0: problems.append(f"{r.get('decode_errors')} decode errors")
if not r.get("ok"): problems.append(f"viewer: {r.get('failures') or r.get('error')}")
print(json.dumps({"frames_by_resolution": frames, "switch_latency_ms": [[s["substream"], s["latency_ms"]] for s in r.get("switches", [])],
                  "fps_by_temporal": r.get("fps_by_temporal"), "decode_errors": r.get("decode_errors"), "problems": problems}))
sys.exit(1 if problems else 0)
PY
    fi
    kill -TERM "$publisher_pid" 2>/dev/null || true
    wait "$publisher_pid" 2>/dev/null || true
    scripts/janus-harness.sh stop "$dir" >/dev/null 2>&1 || true
    rm -rf "$tmp"
    return $status
}

status=0
run three 3 "0:0,3:1,6:2" "9:0,11:2" "320x180,640x360,1280x720" || status=1
run two 2 "0:0,4:1" "" "320x180,1280x720" || status=1
run e2ee 3 "0:2" "" "1280x720" "$(head -c 16 /dev/urandom | base64)" || status=1
exit $status
