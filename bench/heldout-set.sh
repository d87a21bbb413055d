#!/usr/bin/env bash
# Assembles the held-out set for `npm run bench -- --dir DIR`: images of the corpus's kinds that
# are not in the corpus, laid out like it (one folder per category; upscale/emoji32 + emoji512
# pairs and upscale/icons-svg), with kinds.tsv (the kind a person expects) and SOURCES.md (each
# file's origin, package and licence). Files come from this machine (icon themes; Rust, Python and
# Google Cloud SDK documentation) and from Debian packages fetched with `apt-get download` and
# unpacked into a cache, not installed (run `apt-get update` once on a fresh machine). A missing
# file is named and left out. Nothing here is copied into the repository.
#
#   bash bench/heldout-set.sh /tmp/heldout && npm run bench -- --dir /tmp/heldout
set -euo pipefail
dir="${1:?usage: heldout-set.sh DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
debs="${HELDOUT_DEB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vectorize-heldout-debs}"
mkdir -p "$dir" "$debs"
rust=$(ls -d /root/.rustup/toolchains/stable-*/share/doc/rust/html/embedded-book/assets 2>/dev/null | head -1 || true)
python_webp=$(ls /root/.pyenv/versions/*/lib/python3*/test/test_email/data/python.webp 2>/dev/null | head -1 || true)
sdk=/usr/lib/google-cloud-sdk/platform
emojione=/usr/share/rubygems-integration/all/gems/gemojione-3.3.0/assets/svg
tango=/usr/share/icons/Tango/scalable
lilypond=/usr/share/doc/lilypond/html/Documentation/pictures
freecol=/usr/share/games/freecol/default/resources/images/ui

# Prints the path of FILE from Debian package PACKAGE: the installed file if there is one, else
# the file unpacked from the package's .deb in the cache (downloaded once). Fails if neither works.
from_package() {
  local package=$1 file=$2 root="$debs/$1"
  if [[ -f "$file" ]]; then echo "$file"; return; fi
  if [[ ! -f "$root$file" ]]; then
    if ! compgen -G "$debs/${package}_*.deb" >/dev/null; then
      (cd "$debs" && apt-get download -q "$package" >/dev/null 2>&1) || return 1
    fi
    mkdir -p "$root"
    dpkg-deb --fsys-tarfile "$(compgen -G "$debs/${package}_*.deb" | head -1)" | tar -x -C "$root" ".$file" 2>/dev/null || return 1
  fi
  echo "$root$file"
}

printf '# What a person expects `mode: auto` to pick for each held-out image (paths relative to this set).\n# image\tkind\twhy\n' >"$dir/kinds.tsv"
printf '# Held-out set: sources and licences\n\nAssembled by bench/heldout-set.sh on %s.\n\n| file | source | package | licence |\n|---|---|---|---|\n' "$(date -u +%F)" >"$dir/SOURCES.md"
copied=0
wanted=0

# add TARGET KIND WHY PACKAGE SOURCE LICENCE — PACKAGE "-" for a file already on this machine.
add() {
  local target=$1 kind=$2 why=$3 package=$4 source=$5 licence=$6 path
  wanted=$((wanted + 1))
  if [[ "$package" == - ]]; then path=$source; else path=$(from_package "$package" "$source" || true); fi
  if [[ -z "$path" || ! -f "$path" ]]; then
    if [[ "$package" == - ]]; then echo "missing: $target (${source:-no source} is not on this machine)" >&2; else echo "missing: $target ($source of Debian package $package)" >&2; fi
    return
  fi
  mkdir -p "$dir/$(dirname "$target")"
  cp "$path" "$dir/$target"
  [[ "$kind" == - ]] || printf '%s\t%s\t%s\n' "$target" "$kind" "$why" >>"$dir/kinds.tsv"
  printf '| %s | `%s` | %s | %s |\n' "$target" "$source" "$package" "$licence" >>"$dir/SOURCES.md"
  copied=$((copied + 1))
}

# add_emoji_pair NAME SOURCE.svg — renders a vector emoji at 32 px (input) and 512 px (reference).
add_emoji_pair() {
  local name=$1 source=$2 path
  wanted=$((wanted + 1))
  path=$(from_package ruby-gemojione "$source" || true)
  if [[ -z "$path" ]]; then
    echo "missing: emoji $name ($source, ruby-gemojione)" >&2
    return
  fi
  mkdir -p "$dir/upscale/emoji32" "$dir/upscale/emoji512"
  (cd "$repo" && npx --no-install tsx bench/render-svg.ts "$path" "$dir/upscale/emoji32/$name.png" 32 &&
    npx --no-install tsx bench/render-svg.ts "$path" "$dir/upscale/emoji512/$name.png" 512)
  for size in 32 512; do
    printf 'upscale/emoji%s/%s.png\tlogo\t%s px emoji: flat anti-aliased shapes\n' "$size" "$name" "$size" >>"$dir/kinds.tsv"
  done
  printf '| upscale/emoji32/%s.png, upscale/emoji512/%s.png | `%s` rendered by resvg at 32 and 512 px | ruby-gemojione | CC-BY-SA-4.0 (EmojiOne, Ranks.com) |\n' \
    "$name" "$name" "$source" >>"$dir/SOURCES.md"
  copied=$((copied + 1))
}

# Files on this machine (the set of the first engine round).
add clipart/python.webp logo '16 px anti-aliased favicon: soft edges, not pixel art' - "$python_webp" 'PSF-2.0 (CPython test data)'
add logo/audio-headphones.png logo 'full-colour icon with shading' - /usr/share/icons/Adwaita/512x512/devices/audio-headphones.png 'LGPL-3.0 or CC-BY-SA-3.0 (Adwaita)'
add logo/folder-pictures.png logo 'full-colour icon' - /usr/share/icons/Adwaita/512x512/places/folder-pictures.png 'LGPL-3.0 or CC-BY-SA-3.0 (Adwaita)'
add logo/user-bookmarks.png logo 'full-colour icon' - /usr/share/icons/Adwaita/512x512/places/user-bookmarks.png 'LGPL-3.0 or CC-BY-SA-3.0 (Adwaita)'
add logo/camera-web.png logo 'full-colour icon with shading' - /usr/share/icons/Adwaita/512x512/devices/camera-web.png 'LGPL-3.0 or CC-BY-SA-3.0 (Adwaita)'
add photo/f3.jpg photo 'photograph of a circuit board' - "$rust/f3.jpg" 'MIT or Apache-2.0 (Rust embedded book)'
add photo/verify.jpeg photo 'photograph' - "$rust/verify.jpeg" 'MIT or Apache-2.0 (Rust embedded book)'
add photo/jetty-pic.png photo 'photograph with a logo over it' - "$sdk/google_appengine/google/appengine/tools/java/jetty12/jetty-home/modules/demo.d/root/images/jetty-pic.png" 'EPL-2.0 or Apache-2.0 (Jetty demo)'
add pixelart/gvim.png pixelart '32 px 16-colour icon: hard edges, no anti-aliasing' - /usr/share/icons/locolor/32x32/apps/gvim.png 'Vim licence'
add sketch/nrf52-memory-map.png sketch 'diagram: black lines and lettering on white' - "$rust/nrf52-memory-map.png" 'MIT or Apache-2.0 (Rust embedded book)'
add sketch/requests-logo.png sketch 'engraving-style drawing, black on white' - "$sdk/gsutil/third_party/requests/ext/requests-logo.png" 'Apache-2.0 (requests)'
add document/pyparsingClassDiagram_1.5.2.jpg logo 'class diagram with pale flat fills, JPEG' - "$sdk/gsutil/third_party/pyparsing/docs/_static/pyparsingClassDiagram_1.5.2.jpg" 'MIT (pyparsing)'
add document/gnupg-module-overview.png logo 'diagram with flat coloured boxes' - /usr/share/info/gnupg-module-overview.png 'GPL-3.0+ (GnuPG manual)'

# Engravings and woodcuts, sepia scans (FreeCol's Debian copyright: landing, political and trade
# are public-domain reproductions; the rest falls under the game's GPL-2+).
add sketch/freecol_landing.png sketch 'wood engraving, sepia scan' freecol "$freecol/landing.png" 'public domain (David Rumsey Map Collection)'
add sketch/freecol_political.png sketch 'wood engraving of a building, sepia scan' freecol "$freecol/political.png" 'public domain (David Rumsey Map Collection)'
add sketch/freecol_trade.png sketch 'wood engraving of orchards, sepia scan' freecol "$freecol/trade.png" 'public domain (David Rumsey Map Collection)'
add sketch/freecol_meet_natives.png sketch 'engraving, sepia scan' freecol "$freecol/meet_natives.png" 'GPL-2+ (FreeCol; a historical engraving)'
add sketch/freecol_discovery.png sketch 'engraving, sepia scan' freecol "$freecol/discovery.png" 'GPL-2+ (FreeCol; a historical engraving)'
add sketch/freecol_meet_inca.png sketch 'pen drawing with a caption (Guaman Poma style), ink on white' freecol "$freecol/meet_inca.png" 'GPL-2+ (FreeCol; a historical drawing)'
# Engraved music, scanned (LilyPond's essay on music engraving).
add sketch/lilypond_morgenlied_scan.png sketch 'engraved music, greyscale scan' lilypond-doc "$lilypond/morgenlied-crop-2.png" 'GFDL-1.3+ (LilyPond documentation)'
add sketch/lilypond_bwv861_gesellschaft.png sketch 'engraved music (Bach-Gesellschaft edition), 1-bit scan' lilypond-doc "$lilypond/bwv861-gesellschaft.png" 'GFDL-1.3+ (LilyPond documentation)'
add photo/lilypond_hader_slaan.png photo 'greyscale halftone photograph of an engraver at work' lilypond-doc "$lilypond/hader-slaan.png" 'GFDL-1.3+ (LilyPond documentation)'
# Handwriting on parchment.
add document/freecol_declaration.png sketch 'handwritten document on parchment (Declaration of Independence facsimile)' freecol "$freecol/doi.png" 'public domain (Wikimedia, per FreeCol’s Debian copyright)'

# Tiny emoji: vector originals rendered small (input) and large (reference).
for emoji in 1F600 1F431 1F34E 1F680 1F308 26BD; do
  add_emoji_pair "emojione_${emoji,,}" "$emojione/$emoji.svg"
done
# Gradient icons: Tango's scalable SVGs, rendered by the bench at 128 and 512 px.
for icon in apps/utilities-terminal apps/internet-web-browser devices/computer places/user-home status/weather-few-clouds mimetypes/x-office-spreadsheet; do
  add "upscale/icons-svg/tango_$(basename "$icon").svg" - '' tango-icon-theme "$tango/$icon.svg" 'public domain (Tango)'
done

echo "$copied of $wanted held-out entries in $dir"
