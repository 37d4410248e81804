/*
 * troika-rsh-agent: the launch agent Open MPI calls instead of ssh (plm_rsh_agent), without a JVM.
 *
 * bin/troika-rsh runs this program for the agent's one job (never for `task-service` or `cleanup`) when it was
 * built (dist's package step, any C11 compiler; no compiler, no file, and the JVM agent serves as before). It speaks
 * the same wire protocol as org.troika.rsh.agent.RshMain (docs/launch-agent.md, "The agent without a JVM"):
 *
 *   driver:        Lookup(host) -> LookupReply(host, endpoints)                    (patient connection)
 *   task service:  Launch(id, words, 1000) for an Open MPI daemon, else Exec(id, words);
 *                  then Output(stream, bytes)... until Exited(code), Started (0) or Failure (255)
 *
 * Everything the JVM agent would refuse with a message of its own (argv, the environment, the key) is not judged here:
 * this program then runs the JVM agent (bin/troika-rsh with TROIKA_RSH_NATIVE=off), before it has read or written
 * anything, so errors exist once. Frames are authenticated (HMAC-SHA256 over the whole header and body, constant-time
 * comparison, sequence numbers) before any field of the body is read; nothing here decodes text: the command words and
 * the output are bytes. A JVM start here cost ~265 ms of CPU and ~35 MB per daemon started (docs/launch-agent.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum {
    WIRE_VERSION = 2,
    PROTOCOL_RELAY = 1,
    BUSY = 0xFE,
    NONCE_LEN = 16,
    MAC_LEN = 32,
    HEADER = 16,
    MAX_BODY = 1 << 20,
    CONNECTION_FAILED = 255,
    USE_JVM = -1,
    DAEMON_START_MS = 1000, /* RshMain.DAEMON_START_MS */
    DEFAULT_LIVENESS_MS = 7000, /* Liveness.AGENT_TIMEOUT, when the launcher did not say */
    MIN_KEY_BYTES = 16,
    MAX_KEY_BYTES = 1024,
    /* RelayCodec's types */
    T_HEARTBEAT = 2, T_LOOKUP = 6, T_LOOKUP_REPLY = 7, T_EXEC = 8, T_OUTPUT = 10, T_EXITED = 11, T_FAILURE = 14,
    T_LAUNCH = 30, T_STARTED = 31,
};

/* ---- SHA-256 and HMAC (FIPS 180-4, RFC 2104) ---- */

typedef struct {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t used;
} sha256;

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_block(sha256 *s, const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) {
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    }
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha256_init(sha256 *s) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->bytes = 0;
    s->used = 0;
}

static void sha256_update(sha256 *s, const void *data, size_t n) {
    const unsigned char *p = data;
    s->bytes += n;
    while (n > 0) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used == 64) {
            sha256_block(s, s->block);
            s->used = 0;
        }
    }
}

static void sha256_final(sha256 *s, unsigned char out[32]) {
    uint64_t bits = s->bytes * 8;
    unsigned char pad = 0x80;
    sha256_update(s, &pad, 1);
    pad = 0;
    while (s->used != 56) {
        sha256_update(s, &pad, 1);
    }
    unsigned char len[8];
    for (int i = 0; i < 8; i++) {
        len[i] = (unsigned char)(bits >> (56 - 8 * i));
    }
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

typedef struct {
    sha256 inner;
    sha256 outer;
} hmac;

static void hmac_init(hmac *m, const unsigned char *key, size_t n) {
    unsigned char k[64] = {0};
    if (n > 64) {
        sha256 s;
        sha256_init(&s);
        sha256_update(&s, key, n);
        sha256_final(&s, k);
    } else {
        memcpy(k, key, n);
    }
    unsigned char ipad[64], opad[64];
    for (int i = 0; i < 64; i++) {
        ipad[i] = k[i] ^ 0x36;
        opad[i] = k[i] ^ 0x5c;
    }
    sha256_init(&m->inner);
    sha256_update(&m->inner, ipad, 64);
    sha256_init(&m->outer);
    sha256_update(&m->outer, opad, 64);
}

static void hmac_final(hmac *m, unsigned char out[32]) {
    unsigned char in[32];
    sha256_final(&m->inner, in);
    sha256_update(&m->outer, in, 32);
    sha256_final(&m->outer, out);
}

static int equal_in_constant_time(const unsigned char *a, const unsigned char *b, size_t n) {
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) {
        d |= a[i] ^ b[i];
    }
    return d == 0;
}

/* ---- the key (Secret.fromEnv: TROIKA_SECRET_KEY, else the file TROIKA_SECRET_FILE names; base64) ---- */

static int b64(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* The bytes of strict base64 text (padding optional at the end only), or -1. */
static int base64_decode(const char *t, size_t n, unsigned char *out, size_t cap) {
    size_t len = 0;
    uint32_t acc = 0;
    int bits = 0;
    size_t end = n;
    while (end > 0 && t[end - 1] == '=') {
        end--;
    }
    if (n - end > 2 || (n % 4 != 0 && n != end)) {
        return -1;
    }
    for (size_t i = 0; i < end; i++) {
        int v = b64((unsigned char)t[i]);
        if (v < 0) {
            return -1;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (len == cap) {
                return -1;
            }
            out[len++] = (unsigned char)(acc >> bits);
        }
    }
    return bits >= 6 ? -1 : (int)len;
}

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Whether an environment value is unset or only white space (what Java's isBlank() says of it). */
static int is_blank(const char *v) {
    for (const char *p = v; p != NULL && *p; p++) {
        if (!is_space((unsigned char)*p)) return 0;
    }
    return 1;
}

/* The key, or -1 (the JVM agent then says what is wrong). */
static int read_key(unsigned char *key) {
    char text[4 * MAX_KEY_BYTES];
    const char *v = getenv("TROIKA_SECRET_KEY");
    size_t n;
    if (!is_blank(v)) {
        n = strlen(v);
        if (n >= sizeof text) {
            return -1;
        }
        memcpy(text, v, n);
    } else {
        const char *file = getenv("TROIKA_SECRET_FILE");
        if (file == NULL || *file == 0) {
            return -1;
        }
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            return -1;
        }
        n = 0;
        ssize_t r;
        while ((r = read(fd, text + n, sizeof text - n)) > 0) {
            n += (size_t)r;
            if (n == sizeof text) {
                close(fd);
                return -1;
            }
        }
        close(fd);
        if (r < 0) {
            return -1;
        }
    }
    size_t from = 0;
    while (from < n && is_space((unsigned char)text[from])) from++;
    while (n > from && is_space((unsigned char)text[n - 1])) n--;
    int len = base64_decode(text + from, n - from, key, MAX_KEY_BYTES);
    return len < MIN_KEY_BYTES ? -1 : len;
}

/* ---- endpoints ("ADDRESS:PORT[,ADDRESS:PORT...]", [v6] in brackets) ---- */

typedef struct {
    char address[256];
    char port[8];
} endpoint;

enum { MAX_ENDPOINTS = 64 };

/* Parses Endpoint.parseList's text; returns the count, or -1 where it would be a usage error. */
static int parse_endpoints(const char *text, endpoint *out) {
    int count = 0;
    const char *p = text;
    while (1) {
        const char *end = strchr(p, ',');
        size_t n = end == NULL ? strlen(p) : (size_t)(end - p);
        while (n > 0 && is_space((unsigned char)*p)) { p++; n--; }
        while (n > 0 && is_space((unsigned char)p[n - 1])) n--;
        if (n > 0) {
            const char *colon = NULL;
            for (size_t i = 0; i < n; i++) {
                if (p[i] == ':') colon = p + i;
            }
            if (colon == NULL || colon == p || colon == p + n - 1 || count == MAX_ENDPOINTS) {
                return -1;
            }
            size_t alen = (size_t)(colon - p);
            const char *a = p;
            if (alen >= 2 && a[0] == '[' && a[alen - 1] == ']') {
                a++;
                alen -= 2;
            }
            size_t plen = (size_t)(p + n - colon - 1);
            if (alen == 0 || alen >= sizeof out->address || plen > 5) {
                return -1;
            }
            long port = 0;
            for (size_t i = 0; i < plen; i++) {
                if (colon[1 + i] < '0' || colon[1 + i] > '9') return -1;
                port = port * 10 + (colon[1 + i] - '0');
            }
            if (port < 1 || port > 65535) {
                return -1;
            }
            memcpy(out[count].address, a, alen);
            out[count].address[alen] = 0;
            snprintf(out[count].port, sizeof out[count].port, "%ld", port);
            count++;
        }
        if (end == NULL) {
            break;
        }
        p = end + 1;
    }
    return count == 0 ? -1 : count;
}

/* ---- one authenticated connection ---- */

typedef struct {
    int fd;
    int timeout_ms; /* read timeout before a frame's first byte; -1: none (patient) */
    hmac send_prefix;
    hmac receive_prefix;
    uint64_t send_seq;
    uint64_t receive_seq;
} channel;

static char problem[512]; /* the last failure, as the JVM agent's exception message would say it */

static void fail(const char *what) {
    snprintf(problem, sizeof problem, "%s", what);
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

enum { IO_OK = 0, IO_EOF = 1, IO_TIMEOUT = 2, IO_ERROR = 3 };

/* Reads exactly n bytes: IO_EOF when the peer closed first, IO_TIMEOUT when a wait for data passed timeout_ms. */
static int read_fully(int fd, void *buf, size_t n, int timeout_ms) {
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        if (timeout_ms >= 0) {
            struct pollfd w = {fd, POLLIN, 0};
            int r = poll(&w, 1, timeout_ms);
            if (r == 0) {
                return IO_TIMEOUT;
            }
            if (r < 0) {
                if (errno == EINTR) continue;
                return IO_ERROR;
            }
        }
        ssize_t r = read(fd, p + got, n - got);
        if (r == 0) {
            return IO_EOF;
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            return IO_ERROR;
        }
        got += (size_t)r;
    }
    return IO_OK;
}

static int write_fully(int fd, const void *buf, size_t n) {
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static void mac_prefix(hmac *m, const unsigned char *key, int keylen, const unsigned char *server_nonce,
                       const unsigned char *client_nonce, unsigned char direction) {
    static const char label[] = "troika-wire-2";
    unsigned char proto = PROTOCOL_RELAY;
    hmac_init(m, key, (size_t)keylen);
    sha256_update(&m->inner, label, sizeof label - 1);
    sha256_update(&m->inner, &proto, 1);
    sha256_update(&m->inner, server_nonce, NONCE_LEN);
    sha256_update(&m->inner, client_nonce, NONCE_LEN);
    sha256_update(&m->inner, &direction, 1);
}

static int connect_within(const struct addrinfo *a, int timeout_ms) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
        fail(strerror(errno));
        return -1;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
        fail(strerror(errno));
        close(fd);
        return -1;
    }
    struct pollfd w = {fd, POLLOUT, 0};
    int r;
    do {
        r = poll(&w, 1, timeout_ms);
    } while (r < 0 && errno == EINTR);
    int err = 0;
    socklen_t len = sizeof err;
    if (r == 0) {
        fail("Connect timed out");
        close(fd);
        return -1;
    }
    if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
        fail(strerror(err != 0 ? err : errno));
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

enum { HELLO_OK = 0, HELLO_BUSY = 1, HELLO_FAILED = 2 };

/* The client's half of the handshake (Handshake: the server's nonce first, then ours with the proof). */
static int hello(channel *c, const unsigned char *key, int keylen) {
    unsigned char h[4 + NONCE_LEN];
    int r = read_fully(c->fd, h, sizeof h, c->timeout_ms);
    if (r != IO_OK) {
        fail(r == IO_TIMEOUT ? "Read timed out" : "the peer closed the connection during the hello");
        return HELLO_FAILED;
    }
    if (h[0] != 'T' || h[1] != 'K') {
        fail("not a troika wire peer (bad hello)");
        return HELLO_FAILED;
    }
    if (h[2] != WIRE_VERSION) {
        snprintf(problem, sizeof problem, "wire version %d is not supported (this side speaks %d); use the same"
                 " troika version on every host", h[2], WIRE_VERSION);
        return HELLO_FAILED;
    }
    if (h[3] == BUSY) {
        fail("the service is busy (too many connections that have not authenticated)");
        return HELLO_BUSY;
    }
    if (h[3] != PROTOCOL_RELAY) {
        fail("the peer speaks another protocol than the relay protocol");
        return HELLO_FAILED;
    }
    unsigned char mine[NONCE_LEN];
    if (getrandom(mine, sizeof mine, 0) != (ssize_t)sizeof mine) {
        fail("no random bytes for a nonce");
        return HELLO_FAILED;
    }
    unsigned char out[4 + NONCE_LEN + MAC_LEN] = {'T', 'K', WIRE_VERSION, PROTOCOL_RELAY};
    memcpy(out + 4, mine, NONCE_LEN);
    hmac proof;
    mac_prefix(&proof, key, keylen, h + 4, mine, 0);
    hmac_final(&proof, out + 4 + NONCE_LEN);
    if (write_fully(c->fd, out, sizeof out) < 0) {
        fail(strerror(errno));
        return HELLO_FAILED;
    }
    mac_prefix(&c->send_prefix, key, keylen, h + 4, mine, 1);
    mac_prefix(&c->receive_prefix, key, keylen, h + 4, mine, 2);
    c->send_seq = 0;
    c->receive_seq = 0;
    return HELLO_OK;
}

/*
 * Connects to the first of the endpoints that accepts (WireChannel.connectAny): a busy service is tried again after a
 * growing random pause within timeout_ms. Patient: no read timeout, TCP keepalive probes every second after 2 s of
 * quiet, 3 unanswered end it (WireChannel.connectAnyPatient).
 */
static int connect_any(channel *c, const endpoint *eps, int n, const unsigned char *key, int keylen, int timeout_ms,
                       int patient) {
    fail("no endpoints to connect to");
    for (int i = 0; i < n; i++) {
        struct addrinfo hints = {0}, *found = NULL;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        int g = getaddrinfo(eps[i].address, eps[i].port, &hints, &found);
        if (g != 0) {
            snprintf(problem, sizeof problem, "%s: %s", eps[i].address, gai_strerror(g));
            continue;
        }
        long long deadline = now_ms() + timeout_ms;
        long backoff = 10;
        while (1) {
            int fd = connect_within(found, timeout_ms);
            if (fd < 0) {
                break;
            }
            if (patient) {
                int on = 1, idle = 2, interval = 1, probes = 3;
                setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
                setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
                setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
                setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
            }
            c->fd = fd;
            c->timeout_ms = patient ? -1 : timeout_ms;
            int h = hello(c, key, keylen);
            if (h == HELLO_OK) {
                freeaddrinfo(found);
                return 0;
            }
            close(fd);
            long long left = deadline - now_ms();
            if (h != HELLO_BUSY || left <= 0) {
                break;
            }
            long pause = backoff + (long)(random() % (backoff + 1));
            struct timespec t = {0, (pause < left ? pause : left) * 1000000L};
            nanosleep(&t, NULL);
            backoff = backoff * 2 < 400 ? backoff * 2 : 400;
        }
        freeaddrinfo(found);
    }
    return -1;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16); p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}

/* Seals and sends one frame of {type, body}. */
static int send_frame(channel *c, int type, const unsigned char *body, size_t n) {
    unsigned char *f = malloc(HEADER + n + MAC_LEN);
    if (f == NULL) {
        return -1;
    }
    f[0] = 'T'; f[1] = 'K'; f[2] = WIRE_VERSION; f[3] = (unsigned char)type;
    put64(f + 4, c->send_seq);
    put32(f + 12, (uint32_t)n);
    memcpy(f + HEADER, body, n);
    hmac m = c->send_prefix;
    sha256_update(&m.inner, f, HEADER + n);
    hmac_final(&m, f + HEADER + n);
    int r = write_fully(c->fd, f, HEADER + n + MAC_LEN);
    free(f);
    c->send_seq++;
    return r;
}

/* A frame that began and did not end (WireChannel.readFully's words). */
static int midframe(int r) {
    fail(r == IO_EOF ? "truncated frame"
         : r == IO_TIMEOUT ? "the peer stalled in the middle of a frame" : strerror(errno));
    return IO_ERROR;
}

/*
 * Receives, authenticates and returns one frame (the body is the caller's to free). IO_EOF: closed between frames;
 * IO_TIMEOUT: no frame began within the timeout; IO_ERROR: anything else (problem says what).
 */
static int receive_frame(channel *c, int *type, unsigned char **body, uint32_t *len) {
    unsigned char h[HEADER];
    int r = read_fully(c->fd, h, 1, c->timeout_ms);
    if (r != IO_OK) {
        if (r == IO_ERROR) fail(strerror(errno));
        return r;
    }
    r = read_fully(c->fd, h + 1, HEADER - 1, c->timeout_ms);
    if (r != IO_OK) {
        return midframe(r);
    }
    if (h[0] != 'T' || h[1] != 'K') {
        fail("bad frame magic");
        return IO_ERROR;
    }
    if (h[2] != WIRE_VERSION) {
        snprintf(problem, sizeof problem, "bad frame version %d", h[2]);
        return IO_ERROR;
    }
    uint32_t n = get32(h + 12);
    if (n > MAX_BODY) {
        snprintf(problem, sizeof problem, "frame of %u bytes exceeds the limit %d", n, MAX_BODY);
        return IO_ERROR;
    }
    unsigned char *rest = malloc((size_t)n + MAC_LEN);
    if (rest == NULL) {
        fail("out of memory");
        return IO_ERROR;
    }
    r = read_fully(c->fd, rest, (size_t)n + MAC_LEN, c->timeout_ms);
    if (r != IO_OK) {
        free(rest);
        return midframe(r);
    }
    unsigned char expected[MAC_LEN];
    hmac m = c->receive_prefix;
    sha256_update(&m.inner, h, HEADER);
    sha256_update(&m.inner, rest, n);
    hmac_final(&m, expected);
    if (!equal_in_constant_time(expected, rest + n, MAC_LEN)) {
        free(rest);
        fail("frame MAC does not verify (wrong secret or tampered frame)");
        return IO_ERROR;
    }
    uint64_t seq = (uint64_t)get32(h + 4) << 32 | get32(h + 8);
    if (seq != c->receive_seq) {
        free(rest);
        fail("frame sequence out of order (replayed frame)");
        return IO_ERROR;
    }
    c->receive_seq++;
    *type = h[3];
    *body = rest;
    *len = n;
    return IO_OK;
}

/* A length-prefixed field of a body (BodyIn.bytes): its start and length, or -1 when truncated. */
static int field(const unsigned char *body, uint32_t n, uint32_t *at, const unsigned char **v, uint32_t *vlen) {
    if (n - *at < 4) return -1;
    uint32_t l = get32(body + *at);
    if (l > n - *at - 4) return -1;
    *v = body + *at + 4;
    *vlen = l;
    *at += 4 + l;
    return 0;
}

/*
 * The endpoints of a LookupReply body (host string, then a count of address string + port), at most MAX_ENDPOINTS;
 * 0 for a body that does not parse (the JVM agent's decoder would refuse it) or names none.
 */
static int lookup_reply(const unsigned char *body, uint32_t n, endpoint *out) {
    uint32_t at = 0, vlen;
    const unsigned char *v;
    if (field(body, n, &at, &v, &vlen) < 0 || n - at < 4) {
        return 0;
    }
    uint32_t count = get32(body + at);
    at += 4;
    int found = 0;
    for (uint32_t i = 0; i < count && found < MAX_ENDPOINTS; i++) {
        if (field(body, n, &at, &v, &vlen) < 0 || vlen >= sizeof out->address || memchr(v, 0, vlen) != NULL
                || n - at < 4) {
            return 0;
        }
        uint32_t port = get32(body + at);
        at += 4;
        if (port < 1 || port > 65535) {
            return 0;
        }
        memcpy(out[found].address, v, vlen);
        out[found].address[vlen] = 0;
        snprintf(out[found].port, sizeof out[found].port, "%u", port);
        found++;
    }
    return found;
}

/* ---- the agent ---- */

static char *const *original_argv;

/* Runs the JVM agent with the same argv: bin/troika-rsh, told not to come back here. */
static int use_jvm(void) {
    const char *script = getenv("TROIKA_RSH_SCRIPT");
    if (script == NULL || *script == 0) {
        fprintf(stderr, "troika-rsh: TROIKA_RSH_SCRIPT is not set; run the agent as bin/troika-rsh\n");
        return 2;
    }
    char *path = strdup(script);
    unsetenv("TROIKA_RSH_SCRIPT");
    setenv("TROIKA_RSH_NATIVE", "off", 1);
    signal(SIGPIPE, SIG_DFL); /* an ignored signal would stay ignored across the exec */
    execv(path, original_argv);
    fprintf(stderr, "troika-rsh: cannot run %s: %s\n", path, strerror(errno));
    return CONNECTION_FAILED;
}

static int relay(int argc, char **argv) {
    /* AgentRequest.parse: HOST WORD..., no option before HOST, no host:slots; anything else is the JVM's to explain */
    if (argc < 3 || argv[1][0] == '-' || strchr(argv[1], ':') != NULL) {
        return USE_JVM;
    }
    const char *host = argv[1];
    size_t host_len = strlen(host);
    for (size_t i = 0; i < host_len; i++) {
        if ((unsigned char)host[i] >= 0x80) return USE_JVM; /* the JVM agent's text handling decides */
    }
    const char *liveness_text = getenv("TROIKA_LIVENESS_TIMEOUT_MS");
    long liveness = DEFAULT_LIVENESS_MS;
    if (!is_blank(liveness_text)) {
        const char *p = liveness_text;
        while (is_space((unsigned char)*p)) p++;
        char *end;
        errno = 0;
        liveness = strtol(p, &end, 10);
        while (is_space((unsigned char)*end)) end++;
        if (errno != 0 || *end != 0 || liveness <= 0 || liveness > 0x7fffffffL || *p == '+' || *p == '-') {
            return USE_JVM;
        }
    }
    unsigned char key[MAX_KEY_BYTES];
    int keylen = read_key(key);
    const char *driver_text = getenv("TROIKA_DRIVER_ADDR");
    endpoint driver[MAX_ENDPOINTS];
    int ndriver = is_blank(driver_text) ? -1 : parse_endpoints(driver_text, driver);
    if (keylen < 0 || ndriver < 0) {
        return USE_JVM;
    }
    int daemon = 0;
    size_t words_len = 0;
    for (int i = 2; i < argc; i++) {
        daemon |= strcmp(argv[i], "--tree-spawn") == 0 || strcmp(argv[i], "--daemonize") == 0;
        words_len += strlen(argv[i]) + 1;
    }

    /* the driver: which endpoints serve this host */
    channel c;
    if (connect_any(&c, driver, ndriver, key, keylen, (int)liveness, 1) < 0) {
        fprintf(stderr, "troika-rsh: cannot reach the troika driver at %s: %s\n", driver_text, problem);
        return CONNECTION_FAILED;
    }
    unsigned char *lookup = malloc(4 + host_len);
    if (lookup == NULL) {
        close(c.fd);
        fprintf(stderr, "troika-rsh: no memory for a lookup\n");
        return CONNECTION_FAILED;
    }
    put32(lookup, (uint32_t)host_len);
    memcpy(lookup + 4, host, host_len);
    int sent = send_frame(&c, T_LOOKUP, lookup, 4 + host_len);
    free(lookup);
    int type = 0;
    unsigned char *body = NULL;
    uint32_t n = 0;
    int r = sent < 0 ? IO_ERROR : receive_frame(&c, &type, &body, &n);
    close(c.fd);
    if (r != IO_OK) {
        fprintf(stderr, "troika-rsh: cannot reach the troika driver at %s: %s\n", driver_text,
                r == IO_EOF ? "connection closed" : sent < 0 ? strerror(errno) : problem);
        return CONNECTION_FAILED;
    }
    endpoint task[MAX_ENDPOINTS];
    int ntask = type == T_LOOKUP_REPLY ? lookup_reply(body, n, task) : 0;
    free(body);
    if (ntask == 0) {
        fprintf(stderr, "troika-rsh: host %s has no task service registered with the driver\n", host);
        return CONNECTION_FAILED;
    }

    /* the host's task service: run the words, relay what they print, end as they end */
    if (connect_any(&c, task, ntask, key, keylen, (int)liveness, 0) < 0) {
        fprintf(stderr, "troika-rsh: lost the task service of %s: %s\n", host, problem);
        return CONNECTION_FAILED;
    }
    unsigned char *request = malloc(8 + 4 + words_len + 4);
    uint64_t id;
    if (request == NULL || getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) {
        fprintf(stderr, "troika-rsh: no memory or random bytes for a request\n");
        return CONNECTION_FAILED;
    }
    put64(request, id);
    size_t at = 12;
    for (int i = 2; i < argc; i++) {
        size_t l = strlen(argv[i]);
        if (i > 2) request[at++] = ' ';
        memcpy(request + at, argv[i], l);
        at += l;
    }
    put32(request + 8, (uint32_t)(at - 12));
    if (daemon) {
        put32(request + at, DAEMON_START_MS);
        at += 4;
    }
    sent = send_frame(&c, daemon ? T_LAUNCH : T_EXEC, request, at);
    free(request);
    if (sent < 0) {
        fprintf(stderr, "troika-rsh: lost the task service of %s: %s\n", host, strerror(errno));
        return CONNECTION_FAILED;
    }
    while (1) {
        r = receive_frame(&c, &type, &body, &n);
        if (r == IO_EOF) {
            fprintf(stderr, "troika-rsh: connection to the task service of %s closed\n", host);
            return CONNECTION_FAILED;
        }
        if (r == IO_TIMEOUT) {
            fprintf(stderr, "troika-rsh: lost the task service of %s: no heartbeat for %ld ms\n", host, liveness);
            return CONNECTION_FAILED;
        }
        if (r != IO_OK) {
            fprintf(stderr, "troika-rsh: lost the task service of %s: %s\n", host, problem);
            return CONNECTION_FAILED;
        }
        uint32_t pos = 0, vlen;
        const unsigned char *v;
        int code = -1;
        if (type == T_OUTPUT) {
            if (n < 1 || (pos = 1, field(body, n, &pos, &v, &vlen) < 0)) {
                fail("truncated body");
                code = -2;
            } else {
                /* a closed console loses the output, not the relay (the JVM agent's PrintStream does the same) */
                (void)write_fully(body[0] == 2 ? 2 : 1, v, vlen);
            }
        } else if (type == T_EXITED) {
            if (n < 4) {
                fail("truncated body");
                code = -2;
            } else {
                code = (int)(get32(body) & 0xff);
            }
        } else if (type == T_STARTED) {
            code = 0; /* the daemon runs and is the task service's now: Open MPI's launch slot is free again */
        } else if (type == T_FAILURE) {
            if (field(body, n, &pos, &v, &vlen) < 0) {
                fail("truncated body");
                code = -2;
            } else {
                fprintf(stderr, "troika-rsh: %s: %.*s\n", host, (int)vlen, (const char *)v);
                code = CONNECTION_FAILED;
            }
        }
        /* a Heartbeat says the host is alive; nothing else comes to an agent */
        free(body);
        if (code == -2) {
            fprintf(stderr, "troika-rsh: lost the task service of %s: %s\n", host, problem);
            return CONNECTION_FAILED;
        }
        if (code >= 0) {
            return code;
        }
    }
}

int main(int argc, char **argv) {
    original_argv = argv;
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is an error of that write, as in the JVM */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    srandom((unsigned)(t.tv_nsec ^ getpid()));
    int code = relay(argc, argv);
    if (code == USE_JVM) {
        return use_jvm();
    }
    return code;
}
