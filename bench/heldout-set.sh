#!/usr/bin/env bash
# Assembles the held-out set for `npm run bench -- --dir DIR`: images of the corpus's kinds that
# are not in the corpus, taken from files a Debian machine of this workplace carries (icon themes,
# Rust, Python and Google Cloud SDK documentation). Nothing is downloaded; a missing file is named
# and left out.
#
#   bash bench/heldout-set.sh /tmp/heldout && npm run bench -- --dir /tmp/heldout
set -euo pipefail
dir="${1:?usage: heldout-set.sh DIR}"
rust=$(ls -d /root/.rustup/toolchains/stable-*/share/doc/rust/html/embedded-book/assets 2>/dev/null | head -1 || true)
python_webp=$(ls /root/.pyenv/versions/*/lib/python3*/test/test_email/data/python.webp 2>/dev/null | head -1 || true)
sdk=/usr/lib/google-cloud-sdk/platform

# kind/name  source
files=(
  "clipart/python.webp              $python_webp"
  "logo/audio-headphones.png        /usr/share/icons/Adwaita/512x512/devices/audio-headphones.png"
  "logo/folder-pictures.png         /usr/share/icons/Adwaita/512x512/places/folder-pictures.png"
  "logo/user-bookmarks.png          /usr/share/icons/Adwaita/512x512/places/user-bookmarks.png"
  "logo/camera-web.png              /usr/share/icons/Adwaita/512x512/devices/camera-web.png"
  "photo/f3.jpg                     $rust/f3.jpg"
  "photo/verify.jpeg                $rust/verify.jpeg"
  "photo/jetty-pic.png              $sdk/google_appengine/google/appengine/tools/java/jetty12/jetty-home/modules/demo.d/root/images/jetty-pic.png"
  "pixelart/gvim.png                /usr/share/icons/locolor/32x32/apps/gvim.png"
  "sketch/nrf52-memory-map.png      $rust/nrf52-memory-map.png"
  "sketch/pyparsingClassDiagram_1.5.2.jpg $sdk/gsutil/third_party/pyparsing/docs/_static/pyparsingClassDiagram_1.5.2.jpg"
  "sketch/requests-logo.png         $sdk/gsutil/third_party/requests/ext/requests-logo.png"
  "document/gnupg-module-overview.png /usr/share/info/gnupg-module-overview.png"
)

copied=0
for line in "${files[@]}"; do
  read -r target source <<<"$line"
  if [[ -z "${source:-}" || ! -f "$source" ]]; then
    echo "missing: $target (${source:-no source found})" >&2
    continue
  fi
  mkdir -p "$dir/$(dirname "$target")"
  cp "$source" "$dir/$target"
  copied=$((copied + 1))
done
echo "$copied of ${#files[@]} held-out images in $dir"
