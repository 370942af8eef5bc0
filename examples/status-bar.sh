#!/usr/bin/env bash
# A status-bar block (waybar "custom" module, i3blocks/polybar with tail):
# prints one short line each time reel's state changes, and waits for a
# daemon to come back when it goes away.
#   waybar: "custom/reel": { "exec": "~/bin/status-bar.sh", "return-type": "" }
set -u
max=${REEL_STATUS_WIDTH:-60}
while true; do
  last=""
  reel status --follow --json 2>/dev/null | while IFS= read -r json; do
    line=$(python3 - "$json" "$max" <<'PY'
import json, sys
s = json.loads(sys.argv[1]); width = int(sys.argv[2])
icon = {"Playing": "▶", "Paused": "⏸"}.get(s["status"], "■")
what = s.get("title") or "nothing queued"
if s.get("artists"): what += " — " + ", ".join(s["artists"])
line = f"{icon} {what}"
print(line if len(line) <= width else line[: width - 1] + "…")
PY
)
    [ "$line" != "$last" ] && echo "$line"
    last=$line
  done
  echo "■ reel not running"
  sleep 5
done
