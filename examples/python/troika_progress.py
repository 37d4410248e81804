"""Progress reports to troika's hang watchdog from a rank in any language: this is the reference client, in
Python with the standard library only (the protocol is in docs/operability.md; a C rank does the same with
OpenSSL's HMAC()).

    import troika_progress
    progress = troika_progress.Progress()      # does nothing unless troika watches this job
    for step in range(steps):
        progress.beat("step %d" % step)        # cheap: sends at most once per reporting interval

Without TROIKA_PROGRESS_ADDR / TROIKA_PROGRESS_KEY (a job without --hang-timeout) beat() only counts. A rank that
never reports is watched by its output lines instead.
"""
import base64
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

_LABEL = b"troika-datagram-1"
_VERSION = 1
_PROGRESS = 4   # the progress protocol's id
_REPORT = 1     # its one message type


def _first_int(env, names, default):
    for n in names:
        v = env.get(n)
        if v is not None and v.strip().isdigit():
            return int(v)
    return default


class Progress:
    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.addr = env.get("TROIKA_PROGRESS_ADDR", "")
        key = env.get("TROIKA_PROGRESS_KEY", "")
        self.key = base64.b64decode(key) if key else b""
        self.on = bool(self.addr and self.key)
        self.rank = _first_int(env, ["TROIKA_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"], 0)
        self.generation = _first_int(env, ["TROIKA_ELASTIC_GENERATION"], 0)
        self.interval = _first_int(env, ["TROIKA_PROGRESS_INTERVAL_MS"], 1000) / 1000.0
        self.beats = 0
        self.commits = 0
        self.where = ""
        self._sock = None
        self._sender = os.urandom(8)   # this sender's id; its datagrams are numbered from 1
        self._seq = 0
        self._last_sent = 0.0
        self._complained = False

    def beat(self, where=None):
        """This rank made progress (and is now at `where`)."""
        self.beats += 1
        if where is not None:
            self.where = where
        now = time.monotonic()
        if self.on and (self._seq == 0 or now - self._last_sent >= self.interval):
            self._send()
            self._last_sent = now

    def _open(self):
        host, port = self.addr.split(",")[0].rsplit(":", 1)
        family, kind, proto, _, address = socket.getaddrinfo(host.strip("[]"), int(port), 0, socket.SOCK_DGRAM)[0]
        s = socket.socket(family, kind, proto)
        s.connect(address)
        self._sock = s

    def _send(self):
        text = ("progress 1 rank=%d gen=%d beats=%d commits=%d in=0 out=0 at= where=%s"
                % (self.rank, self.generation, self.beats, self.commits, self.where.replace("\n", " ")[:120]))
        data = text.encode("utf-8")
        body = struct.pack(">I", len(data)) + data
        try:
            if self._sock is None:
                self._open()
            self._seq += 1
            header = (b"TD" + bytes([_VERSION, _PROGRESS, _REPORT]) + self._sender
                      + struct.pack(">QH", self._seq, len(body)))
            self._sock.send(header + body + hmac.new(self.key, _LABEL + header + body, hashlib.sha256).digest())
        except OSError as e:
            if not self._complained:
                sys.stderr.write("troika: rank %d cannot report progress: %s\n" % (self.rank, e))
                self._complained = True
            self._sock = None
