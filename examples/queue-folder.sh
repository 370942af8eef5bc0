#!/usr/bin/env bash
# Queues every audio/video file under a folder, in name order, and plays the
# first one added:  queue-folder.sh ~/Music/Some\ Album
set -euo pipefail
dir=${1:?usage: queue-folder.sh FOLDER}
mapfile -d '' files < <(find "$dir" -type f \( -iname '*.mp3' -o -iname '*.flac' -o -iname '*.ogg' \
  -o -iname '*.opus' -o -iname '*.m4a' -o -iname '*.wav' -o -iname '*.mp4' -o -iname '*.mkv' -o -iname '*.webm' \) \
  -print0 | sort -z)
[ ${#files[@]} -gt 0 ] || { echo "no media files under $dir" >&2; exit 1; }
before=$(reel queue | wc -l)
reel add "${files[@]}"
reel goto $((before + 1))
