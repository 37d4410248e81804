/*
 * libtroika-prted-guard.so: loaded (LD_PRELOAD) into the PRRTE daemons troika starts (a host's prted, by its task
 * service; mpirun's prterun, by troika run), to keep PRRTE 3.0.x (Open MPI 5.0.x) from corrupting its heap when ranks
 * on two or more hosts connect, as every MPI_Comm_spawn onto another host does (troika's elastic growth in place;
 * docs/elastic.md, "Why a growth crashed").
 *
 * The defect: after the connect's collective, the daemon builds an array of pmix_info_t one element long when the
 * collective assigned no context ID (Open MPI's connect asks for none), then reads and destructs the element after it.
 * What that second element's bytes hold decides the outcome: mostly nothing happens, often enough a garbage pointer is
 * freed ("malloc(): unaligned tcache chunk detected", the daemon aborts and mpirun ends the job). The array comes from
 * PMIx_Info_create; this library gives an array of one element that PRRTE's code (libprrte) asks for a second,
 * constructed empty by PMIx itself (no key, type PMIX_UNDEF), so the element after the last is a valid one whose
 * destruction frees nothing. Callers see the element they asked for; PMIx_Info_free frees the block whatever its
 * length. Nothing else is changed.
 *
 * In a daemon itself the library takes its own path out of LD_PRELOAD at load time, so the ranks the daemon starts
 * (and any daemon it starts by tree spawn, which its task service guards again) do not inherit it. The processes
 * between the task service and the daemon (setsid, unshare, /bin/sh), and Open MPI 5's mpirun before it execs
 * prterun, load it and pass it on untouched.
 *
 * Built by bin/troika-mkcds: cc -O2 -shared -fPIC -o lib/libtroika-prted-guard.so lib/troika-prted-guard.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* PRRTE's daemons by the names their argv[0] give them: a host's prted, and mpirun's own (Open MPI 5's mpirun execs
 * prterun, a link to prte), which hosts the launch node's ranks. Open MPI 4's orted never has the defect. */
static const char *const DAEMONS[] = {"prted", "prterun", "prte"};

typedef void *(*info_create_fn)(size_t);

/* PMIx's own PMIx_Info_create, found once (the daemon's PMIx calls come from its threads; a race only looks it up
 * twice, the result being the same). */
static info_create_fn next_create;

/* Whether the code at addr is PRRTE's library (the daemon's logic), not PMIx's or anyone else's. */
static int in_prrte(const void *addr) {
    Dl_info where;
    if (dladdr(addr, &where) == 0 || where.dli_fname == NULL) {
        return 0;
    }
    const char *base = strrchr(where.dli_fname, '/');
    base = base == NULL ? where.dli_fname : base + 1;
    return strncmp(base, "libprrte.so", strlen("libprrte.so")) == 0;
}

/* Only the arrays of one element that PRRTE's own code asks for get a second: the defect's array is one element long
 * (with a context ID it has the two it uses), and nothing PMIx allocates for itself changes. */
void *PMIx_Info_create(size_t n) {
    info_create_fn f = __atomic_load_n(&next_create, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (info_create_fn) dlsym(RTLD_NEXT, "PMIx_Info_create");
        if (f == NULL) {
            /* no PMIx below us: nothing can have asked for an info array */
            errno = ENOSYS;
            return NULL;
        }
        __atomic_store_n(&next_create, f, __ATOMIC_RELEASE);
    }
    if (n == 1 && in_prrte(__builtin_return_address(0))) {
        n = 2;
    }
    return f(n);
}

/* Removes every LD_PRELOAD entry equal to this library's path; keeps the others in their order. */
static void leave_preload(void) {
    Dl_info self;
    const char *preload = getenv("LD_PRELOAD");
    if (preload == NULL || dladdr((void *) &leave_preload, &self) == 0 || self.dli_fname == NULL) {
        return;
    }
    size_t own = strlen(self.dli_fname);
    size_t len = strlen(preload);
    char *kept = malloc(len + 1);
    if (kept == NULL) {
        return;
    }
    size_t k = 0;
    const char *p = preload;
    while (*p != '\0') {
        /* the dynamic loader separates entries by spaces or colons */
        size_t w = strcspn(p, ": ");
        if (w > 0 && !(w == own && strncmp(p, self.dli_fname, own) == 0)) {
            if (k > 0) {
                kept[k++] = ':';
            }
            memcpy(kept + k, p, w);
            k += w;
        }
        p += w;
        if (*p != '\0') {
            p++;
        }
    }
    kept[k] = '\0';
    if (k == 0) {
        unsetenv("LD_PRELOAD");
    } else {
        setenv("LD_PRELOAD", kept, 1);
    }
    free(kept);
}

extern char *program_invocation_short_name;

__attribute__((constructor)) static void guard_init(void) {
    for (size_t i = 0; i < sizeof DAEMONS / sizeof DAEMONS[0]; i++) {
        if (strcmp(program_invocation_short_name, DAEMONS[i]) == 0) {
            leave_preload();
            return;
        }
    }
}
