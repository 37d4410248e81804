#!/usr/bin/env bash
# bench/prted-guard.sh [RUNS] — shows, without waiting for the heap to be unlucky, what lib/libtroika-prted-guard.so
# prevents (docs/elastic.md, growth item 7). PRRTE 3.0.x, after the connect of a spawn across hosts, destructs the
# pmix_info_t just past an array of one; what that memory holds is chance, so the crash came and went (half the
# growths of 2 ranks in some hours, none in others). Here a stand-in makes it certain: libpoison.so, preloaded into the
# daemons too, allocates every info array of 1 or 2 elements one element longer and puts a string pointer no allocator
# gave into that extra element (pmix_info_t of PMIx 5.0.x: 552 bytes, value at 520, its data at 528). Two runs of
# `bench/elastic-inplace.sh add 2 RUNS OPEN_MPI_5` on a copy of the distribution:
#   poison       the task services preload libpoison.so alone: each growth's daemon frees that pointer and aborts,
#                PRRTE ends the job, troika relaunches (expect RUNS of RUNS "relaunch");
#   guard+poison the guard first: PRRTE's array of one has a valid empty second element, the poisoned one lies past
#                it untouched (expect RUNS of RUNS "in place").
# Needs what bench/elastic-inplace.sh needs (root, the Open MPI 5 root, a build) and cc. ~1 minute per 4 runs.
set -euo pipefail
RUNS=${1:-4}
HERE=$(cd "$(dirname "$0")/.." && pwd)
cd "$HERE"
DIST=$HERE/dist/target/troika
[ -f "$DIST/lib/libtroika-prted-guard.so" ] || { echo "bench: no $DIST/lib/libtroika-prted-guard.so: build first" >&2; exit 2; }
COPY=$(mktemp -d /tmp/troika-prted-guard.XXXXXX)
trap 'rm -rf "$COPY"' EXIT
cp -a "$DIST" "$COPY/troika"
cat >"$COPY/poison.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
extern char *program_invocation_short_name;
void *PMIx_Info_create(size_t n) {
    void *(*next)(size_t) = (void *(*)(size_t)) dlsym(RTLD_NEXT, "PMIx_Info_create");
    if (n == 1 || n == 2) {
        char *p = next(n + 1);
        *(uint16_t *) (p + 552 * n + 520) = 3;        /* value.type = PMIX_STRING */
        *(char **) (p + 552 * n + 528) = (char *) 0x11; /* value.data.string: no allocator's */
        return p;
    }
    return next(n);
}
__attribute__((constructor)) static void init(void) {
    if (strcmp(program_invocation_short_name, "prted") == 0) {
        unsetenv("LD_PRELOAD");
    }
}
EOF
cc -O2 -shared -fPIC -o "$COPY/troika/lib/libpoison.so" "$COPY/poison.c" -ldl
rsh=$COPY/troika/bin/troika-rsh
line='TROIKA_PRTED_GUARD_LIB="$here/lib/libtroika-prted-guard.so"'
grep -qF "$line" "$rsh" || { echo "bench: bin/troika-rsh no longer sets TROIKA_PRTED_GUARD_LIB as expected" >&2; exit 2; }
for mode in poison guard+poison; do
  if [ "$mode" = poison ]; then libs='$here/lib/libpoison.so'; else libs='$here/lib/libtroika-prted-guard.so:$here/lib/libpoison.so'; fi
  sed "s|$line|TROIKA_PRTED_GUARD_LIB=\"$libs\"|" "$DIST/bin/troika-rsh" >"$rsh"
  echo "== $mode"
  TROIKA_HOME=$COPY/troika bash "$HERE/bench/elastic-inplace.sh" add 2 "$RUNS" OPEN_MPI_5 | grep -E '^  add|^add N' | sort -u \
    | sed 's/; load .*//'
done
