#!/usr/bin/env bash
# Apertium's Spanish <-> English pair, the translator that lets a question in one language find documents
# written in the other (`make demo` runs this first). Installed here when it can be (root, and apt-get: Debian
# or Ubuntu), quietly, and a failed install only says so; otherwise it prints the one command to run. It never
# fails: Sabio works without a translator, only cross-language questions are weaker.
#
# SABIO_APERTIUM_MODES: where the pair's mode files are looked for (Apertium's own folder by default).
set -u
modes="${SABIO_APERTIUM_MODES:-/usr/share/apertium/modes}"
package=apertium-eng-spa

installed() {
    [ -f "$modes/spa-eng.mode" ] && [ -f "$modes/eng-spa.mode" ] && command -v apertium-wblank-mode >/dev/null
}

if installed; then
    echo "translator: Apertium (Spanish <-> English) is installed"
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "translator: installing Apertium's Spanish-English pair (apt-get install $package) ..."
    log="$(mktemp)"
    if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; } >"$log" 2>&1 \
        && installed; then
        echo "translator: Apertium installed: questions are translated into the documents' language"
    else
        why="$(grep -v '^\s*$' "$log" | tail -n 1)"
        echo "translator: could not install $package (${why:-no reason given}); Sabio goes on without a" \
             "translator: questions in another language than the documents' are weaker." \
             "Try again: apt-get install $package" >&2
    fi
    rm -f "$log"
    exit 0
fi
if command -v apt-get >/dev/null; then
    run="sudo apt-get install $package"
else
    run="install Apertium's $package pair (https://wiki.apertium.org/wiki/Installation), or set SABIO_TRANSLATOR=llm with an LLM"
fi
echo "translator: none. Questions in another language than the documents' will be weaker; to translate them: $run"
exit 0
