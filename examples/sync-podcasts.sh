#!/bin/sh
# Keeps podcast feeds in the library and their episodes downloaded for
# offline play. Feeds are listed one per line in
# ${XDG_CONFIG_HOME:-~/.config}/reel/feeds (# starts a comment). Run it from
# cron or a systemd timer; a run with nothing new downloads nothing.
set -u
feeds="${XDG_CONFIG_HOME:-$HOME/.config}/reel/feeds"
[ -r "$feeds" ] || { echo "no feed list at $feeds" >&2; exit 1; }
status=0
while IFS= read -r feed; do
    [ -n "$feed" ] || continue
    echo "== $feed"
    reel sync -- "$feed" || status=1
done <<EOF
$(grep -v '^[[:space:]]*\(#\|$\)' "$feeds")
EOF
exit $status
